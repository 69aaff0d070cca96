// META: title=Translator, LanguageDetector and CreateMonitor against the spec's IDL
// META: global=window
// META: timeout=long
// META: script=/resources/WebIDLParser.js
// META: script=/resources/idlharness.js
// META: script=/resources/testdriver.js
//
// A test of tformer's, in WPT's form: idlharness.js checks the interfaces of
// interfaces/translation-api.idl and interfaces/writing-assistance-shared.idl (the IDL blocks of the
// specs) and one object of each: a Translator (en -> ja), a LanguageDetector, and the CreateMonitor
// that create() gives its monitor. The other specs' IDL these refer to is declared below, untested:
// EventTarget as the DOM standard gives it, EventHandler as the HTML standard does.

'use strict';

const DEPENDENCIES = `
[Exposed=*]
interface EventTarget {
  constructor();
  undefined addEventListener(DOMString type, EventListener? callback, optional (AddEventListenerOptions or boolean) options = {});
  undefined removeEventListener(DOMString type, EventListener? callback, optional (EventListenerOptions or boolean) options = {});
  boolean dispatchEvent(Event event);
};

[LegacyTreatNonObjectAsNull]
callback EventHandlerNonNull = any (Event event);
typedef EventHandlerNonNull? EventHandler;
`;

idl_test(['translation-api', 'writing-assistance-shared'], [], async (idl_array) => {
  idl_array.add_dependency_idls(DEPENDENCIES);
  let monitor = null;
  await test_driver.bless('create a Translator');
  self.translator = await Translator.create({ sourceLanguage: 'en', targetLanguage: 'ja', monitor(m) { monitor = m; } });
  self.monitor = monitor;
  await test_driver.bless('create a LanguageDetector');
  self.detector = await LanguageDetector.create();
  idl_array.add_objects({ Translator: ['translator'], LanguageDetector: ['detector'], CreateMonitor: ['monitor'] });
});
