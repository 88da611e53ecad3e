'use strict';
// The syntax check of the map editor's scripts and styles that scripts/lint --web runs before
// eslint (docs/editor.md, "Where the page's files live"): each .js file parsed by acorn as a
// classic script of ECMAScript 2022, as the page loads it (no modules), and each .css file
// parsed by css-tree, every declaration matched against the CSS grammar css-tree carries
// (mdn-data), so that a misspelt property or a value a browser would drop is found too.
// Declarations with var() are only parsed: css-tree cannot match them. Prints one line per
// problem, `file:line:column: message`; exits 1 when there is any. Needs Debian's node-acorn
// and node-css-tree (scripts/install-deps --test) on NODE_PATH (/usr/share/nodejs).
//   node scripts/lint-web.js FILE...
const fs = require('fs');
const acorn = require('acorn');
const csstree = require('css-tree');

let problems = 0;
function report(file, line, column, message) {
  problems++;
  console.log(`${file}:${line}:${column}: ${message}`);
}

function checkScript(file, text) {
  try {
    acorn.parse(text, { ecmaVersion: 2022, sourceType: 'script', locations: true });
  } catch (e) {
    if (!(e instanceof SyntaxError) || !e.loc) throw e;
    report(file, e.loc.line, e.loc.column + 1, e.message.replace(/ \(\d+:\d+\)$/, ''));
  }
}

function checkStyle(file, text) {
  const ast = csstree.parse(text, { positions: true, filename: file,
    onParseError: e => report(file, e.line, e.column, e.message) });
  csstree.walk(ast, { visit: 'Declaration', enter(node) {
    if (node.property.startsWith('--')) return;
    if (csstree.find(node.value, n => n.type === 'Function' && n.name.toLowerCase() === 'var')) return;
    const match = csstree.lexer.matchDeclaration(node);
    if (match.error) {
      const where = node.loc.start;
      report(file, where.line, where.column, `${node.property}: ${match.error.message.split('\n')[0]}: ${csstree.generate(node.value)}`);
    }
  } });
}

for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.js')) checkScript(file, text);
  else if (file.endsWith('.css')) checkStyle(file, text);
  else report(file, 1, 1, 'neither .js nor .css');
}
process.exit(problems ? 1 : 0);
