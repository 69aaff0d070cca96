// The languages the package's detector (CLD2 with Debian's libcld2 tables) can report, as
// canonical BCP 47 tags: what LanguageDetector.availability() answers from before the detector is
// loaded. The engine's own list is tformer::detectable_languages(); tests/web/language_detector
// checks that the two agree.
export const DETECTABLE_LANGUAGES = Object.freeze([
  'af', 'ar', 'az', 'be', 'bg', 'bh', 'bn', 'bs', 'ca', 'ceb', 'chr', 'cs', 'cy', 'da',
  'de', 'dv', 'el', 'en', 'es', 'et', 'eu', 'fa', 'fi', 'fil', 'fr', 'ga', 'gd', 'gl',
  'gu', 'he', 'hi', 'hmn', 'hr', 'ht', 'hu', 'hy', 'id', 'is', 'it', 'iu', 'ja', 'jv',
  'ka', 'kk', 'km', 'kn', 'ko', 'ku', 'ky', 'lg', 'lif', 'lo', 'lt', 'lv', 'mg', 'mk',
  'ml', 'mn', 'mr', 'ms', 'mt', 'my', 'ne', 'nl', 'no', 'ny', 'or', 'pa', 'pl', 'pt',
  'ro', 'ru', 'rw', 'si', 'sk', 'sl', 'sq', 'sr', 'st', 'su', 'sv', 'sw', 'syr', 'ta',
  'te', 'tg', 'th', 'tr', 'uk', 'ur', 'uz', 'vi', 'yi', 'za', 'zh', 'zh-Hant',
]);
