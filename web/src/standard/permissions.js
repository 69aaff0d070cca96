// What the page lets a model API do, as far as a script can see it (writing-assistance-apis,
// "create an AI model object" and "compute AI model availability"):
//
//   the permissions policy: a document that is not allowed to use "translator" (or
//     "language-detector") gets availability "unavailable" and a create() that rejects with
//     NotAllowedError. A script reads the policy through document.permissionsPolicy or Chromium's
//     document.featurePolicy, and only for a feature the browser knows (allowsFeature() is false for
//     a name it does not). Where neither exists (Firefox, Safari), in Workers (which have no
//     document; a Worker inherits the policy of its creator, which it cannot read) and in Node, the
//     policy cannot be read and does not restrict.
//   transient user activation: a create() that must download rejects with NotAllowedError without
//     it. navigator.userActivation.isActive tells it in Window pages (Chrome 72, Firefox 120,
//     Safari 16.4). Workers and Node have no user activation (the spec only creates model objects
//     in a Window); there the download goes ahead without one. A script cannot consume an
//     activation, as the spec's create() does: one click may allow several downloads.

/** Whether this document may use the policy-controlled feature `feature`; true where it cannot be read. */
export function allowedToUse(feature) {
  const document = globalThis.document;
  const policy = document?.permissionsPolicy ?? document?.featurePolicy;
  if (typeof policy?.allowsFeature !== 'function') return true;
  try {
    if (typeof policy.features === 'function' && !policy.features().includes(feature)) return true;
    return policy.allowsFeature(feature) !== false;
  } catch {
    return true;
  }
}

/**
 * Whether this global has transient user activation now: true or false in a Window page, null
 * where there is no such thing to ask (Workers, Node).
 */
export function transientActivation() {
  const activation = globalThis.navigator?.userActivation;
  return typeof activation?.isActive === 'boolean' ? activation.isActive : null;
}
