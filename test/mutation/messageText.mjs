// A Stryker ignorer (docs/decisions/144-mutation-testing.md): mutants of text written for people
// (words separated by spaces: an error's message, a headline; and every line of a text joined from
// lines, blank ones included) are left out of the score; strings that carry
// meaning (codes, states, currencies, account names, keys, paths, expressions) are still mutated.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** Words separated by a space: prose. Codes, states, currencies, keys and paths never have one. */
const prose = /[A-Za-z]{2,} [A-Za-z]{2,}/;

function staticText(path) {
  if (path.isStringLiteral()) return path.node.value;
  if (path.isTemplateLiteral()) return path.node.quasis.map((quasi) => quasi.value.cooked ?? '').join(' ');
  return undefined;
}

/** A template whose holes are plain names holds no other mutant: ignoring it loses nothing else. */
function onlyPlainHoles(path) {
  return !path.isTemplateLiteral() || path.node.expressions.every((hole) => hole.type === 'Identifier' || hole.type === 'MemberExpression');
}

function joined(array) {
  return array.parentPath?.isMemberExpression() && array.parentPath.node.property.name === 'join';
}

/** A list of strings that is not joined into a text is data the code matches (the screening list). */
function inStringList(path) {
  const parent = path.parentPath;
  return parent.isArrayExpression() && !joined(parent) && parent.node.elements.every((element) => element?.type === 'StringLiteral');
}

/** A line of a text made of lines joined (an e-mail's body): its blank lines included. */
function aJoinedLine(path) {
  return path.parentPath.isArrayExpression() && joined(path.parentPath);
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'message-text', {
    shouldIgnore(path) {
      const text = staticText(path);
      if (text === undefined || !onlyPlainHoles(path)) return undefined;
      if (!aJoinedLine(path) && (!prose.test(text) || inStringList(path))) return undefined;
      return 'Message text: words for people, not a value the code decides on (decision 144).';
    },
  }),
];
