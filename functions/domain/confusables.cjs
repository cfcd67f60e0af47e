// unhomoglyph's table (Unicode TR39 confusables, 118 KB), read at the first call. CommonJS on
// purpose: esbuild keeps a required JSON file inside a function that runs at the first require,
// while an imported one becomes an object literal evaluated when the bundle loads, which cost every
// Lambda that screens about 15 ms (half of it on a quiet machine) of its cold start, before any
// name was screened (docs/decisions/146-confusables-read-at-first-use.md).
let table;
module.exports = function confusables() {
  return (table ??= require('unhomoglyph/data.json'));
};
