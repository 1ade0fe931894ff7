// Re-judges the texts of this folder with commitlint itself, rewriting the
// verdicts that tests/commit_lint.rs compares quire's rules with:
//
//   cases.jsonl    {text, cases}: the cases @commitlint/ensure says `text` is in
//   ignores.jsonl  {text, ignored}: whether @commitlint/is-ignored skips `text`
//   rules.jsonl    {id, message, ignored, errors, warnings, parsed}: the
//                  rules of @commitlint/config-conventional that fail, and
//                  the parts commitlint's parser read (quire's test checks
//                  its rules over those parts, so only the rules differ)
//
// Node resolves the packages next to the script, so copy it into a folder
// where they are installed (the recorded verdicts are those of
// @commitlint/* 20.5.3 and conventional-changelog-conventionalcommits 9.3.1):
//   npm install @commitlint/lint @commitlint/parse @commitlint/ensure \
//     @commitlint/is-ignored @commitlint/config-conventional \
//     conventional-changelog-conventionalcommits
//   cp path/to/tests/corpus/commitlint/judge.mjs . && node judge.mjs path/to/tests/corpus/commitlint
import lint from '@commitlint/lint';
import parse from '@commitlint/parse';
import * as ensure from '@commitlint/ensure';
import isIgnored from '@commitlint/is-ignored';
import config from '@commitlint/config-conventional';
import createPreset from 'conventional-changelog-conventionalcommits';
import fs from 'node:fs';
import path from 'node:path';

const folder = process.argv[2];
const read = (name) =>
  fs.readFileSync(path.join(folder, name), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const write = (name, rows) =>
  fs.writeFileSync(path.join(folder, name), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

const CASES = ['lower-case', 'upper-case', 'camel-case', 'kebab-case', 'pascal-case', 'sentence-case', 'snake-case', 'start-case'];
write('cases.jsonl', read('cases.jsonl').map(({ text }) => ({ text, cases: CASES.filter((c) => ensure.case(text, c)) })));
write('ignores.jsonl', read('ignores.jsonl').map(({ text }) => ({ text, ignored: isIgnored(text) })));

const { parser: parserOpts } = await createPreset();
const rules = [];
for (const { id, message } of read('rules.jsonl')) {
  const result = await lint(message, config.rules, { parserOpts });
  const parsed = await parse(message, undefined, parserOpts);
  const parts = Object.fromEntries(
    ['header', 'type', 'scope', 'subject', 'body', 'footer'].filter((k) => parsed[k] != null).map((k) => [k, parsed[k]]),
  );
  rules.push({
    id, message, ignored: isIgnored(message),
    errors: result.errors.map((e) => e.name),
    warnings: result.warnings.map((e) => e.name),
    parsed: parts,
  });
}
write('rules.jsonl', rules);
