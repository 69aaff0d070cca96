// Interface objects shaped as WebIDL defines a browser's own (WebIDL, "ECMAScript binding"), so that
// a page, and idlharness.js, sees the polyfill's Translator, LanguageDetector and CreateMonitor as
// it sees a browser's:
//   - the interface object is a plain function whose [[Prototype]] is the parent interface's object
//     (or Function.prototype); with no constructor in the IDL, calling it or `new` throws a TypeError;
//     `length` 0, `prototype` read-only;
//   - attributes are enumerable accessors on the prototype and operations enumerable, writable
//     methods there, each with WebIDL's `name` and `length` (the count of required arguments);
//   - every member checks its `this` (a brand check): a TypeError, as a rejected promise where the
//     operation returns one;
//   - static operations ignore `this` (`const c = LanguageDetector.create; c()` works);
//   - Symbol.toStringTag on the prototype.
// An object's state is kept in a WeakMap of its interface, out of the page's reach: no helper base
// class or private field shows through the prototype chain.

/**
 * `name`'s interface object. `members`:
 *   parent:     the parent interface object (EventTarget for CreateMonitor), or none
 *   attributes: { name: get(state) | { get(state), set(state, value) } }
 *   operations: { name: { length, promise?, run(state, args) } }  (promise: returns a promise)
 *   statics:    { name: { length, promise?, run(args) } }
 * Returns { Interface, make(state), stateOf(object) }: make() creates an object of the interface
 * for `state`; stateOf() gives an object's state, or undefined for an object not of it.
 */
export function defineInterface(name, { parent = null, attributes = {}, operations = {}, statics = {} } = {}) {
  const brand = new WeakMap();
  // A function expression named by its key: `name` is the interface's; it has no parameters.
  const Interface = {
    [name]: function () {
      throw new TypeError(`Illegal constructor: ${name} has no constructor; ${name}.create() makes one`);
    },
  }[name];
  const prototype = Object.create(parent ? parent.prototype : Object.prototype);
  Object.setPrototypeOf(Interface, parent ?? Function.prototype);
  Object.defineProperty(Interface, 'prototype', { value: prototype, writable: false, enumerable: false, configurable: false });
  Object.defineProperty(prototype, 'constructor', { value: Interface, writable: true, enumerable: false, configurable: true });
  Object.defineProperty(prototype, Symbol.toStringTag, { value: name, writable: false, enumerable: false, configurable: true });

  const stateOf = (object) => ((object !== null && typeof object === 'object') ? brand.get(object) : undefined);
  const checked = (object, member) => {
    const state = stateOf(object);
    if (state === undefined) throw new TypeError(`Illegal invocation: ${name}.prototype.${member} called on an object that is not a ${name}`);
    return state;
  };

  for (const [key, attribute] of Object.entries(attributes)) {
    const { get, set } = typeof attribute === 'function' ? { get: attribute, set: undefined } : attribute;
    const accessors = {
      get [key]() { return get(checked(this, key)); },
      set [key](value) { set(checked(this, key), value); },
    };
    const descriptor = Object.getOwnPropertyDescriptor(accessors, key);
    Object.defineProperty(prototype, key, { get: descriptor.get, set: set ? descriptor.set : undefined, enumerable: true, configurable: true });
  }

  for (const [key, operation] of Object.entries(operations)) {
    const method = {
      [key](...args) {
        if (!operation.promise) return operation.run(checked(this, key), args);
        try {
          return Promise.resolve(operation.run(checked(this, key), args));
        } catch (e) {
          return Promise.reject(e);
        }
      },
    }[key];
    defineMethod(prototype, key, method, operation.length);
  }

  for (const [key, operation] of Object.entries(statics)) {
    const method = {
      [key](...args) {
        if (!operation.promise) return operation.run(args);
        try {
          return Promise.resolve(operation.run(args));
        } catch (e) {
          return Promise.reject(e);
        }
      },
    }[key];
    defineMethod(Interface, key, method, operation.length);
  }

  const make = (state) => {
    // An object of a parent platform interface (EventTarget) is made by its own constructor, with
    // this interface's prototype.
    const object = parent ? Reflect.construct(parent, [], Interface) : Object.create(prototype);
    brand.set(object, state);
    return object;
  };
  return { Interface, make, stateOf };
}

function defineMethod(target, key, method, length) {
  Object.defineProperty(method, 'length', { value: length, writable: false, enumerable: false, configurable: true });
  Object.defineProperty(target, key, { value: method, writable: true, enumerable: true, configurable: true });
}

/**
 * An options argument (a dictionary): undefined is an empty one; anything that is not an object is
 * a TypeError naming `where`. (WebIDL would read null as an empty dictionary too; the package has
 * always refused it, and still does.)
 */
export function dictionary(value, where) {
  if (value === undefined) return {};
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    throw new TypeError(`${where}: options must be an object (a dictionary), not ${value === null ? 'null' : typeof value}`);
  }
  return value;
}

/** WebIDL's conversion of a required DOMString argument (the first of `args`). */
export function requiredString(args, where) {
  if (args.length < 1) throw new TypeError(`${where}: 1 argument required, but only 0 present`);
  return `${args[0]}`;  // a Symbol throws a TypeError, as in WebIDL
}
