/**
 * The fake device's shell grammar: quoting exactly as `sh -c` does it (so escaping bugs show),
 * `;`, `&&`, `||`, pipes and `>`/`2>&1` redirections; anything it does not model is an error.
 */

/** Marks `$?` in a parsed word until run time. */
export const RC = '\u0000RC\u0000';

export interface Simple {
  argv: string[];
  redirs: { fd: number; target: string }[];
}

export function parseShell(line: string): { op: ';' | '&&' | '||'; pipeline: Simple[] }[] {
  const list: { op: ';' | '&&' | '||'; pipeline: Simple[] }[] = [];
  let pipeline: Simple[] = [];
  let cur: Simple = { argv: [], redirs: [] };
  let op: ';' | '&&' | '||' = ';';
  let word: string | null = null;
  let redir: number | null = null;
  const endWord = (): void => {
    if (word === null) return;
    if (redir !== null) cur.redirs.push({ fd: redir, target: word });
    else cur.argv.push(word);
    word = null;
    redir = null;
  };
  const endCmd = (): void => {
    endWord();
    if (redir !== null) throw new Error('syntax error: redirection without a target');
    pipeline.push(cur);
    cur = { argv: [], redirs: [] };
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('syntax error: unterminated quoted string');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      for (;;) {
        if (i >= line.length) throw new Error('syntax error: unterminated quoted string');
        const d = line[i]!;
        if (d === '"') break;
        if (d === '\\' && '$`"\\\n'.includes(line[i + 1] ?? '')) {
          word += line[i + 1];
          i += 2;
        } else if (d === '$' || d === '`') {
          const [text, next] = expand(line, i);
          word += text;
          i = next;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      word = (word ?? '') + (line[i + 1] ?? '');
      i += 2;
    } else if (c === '#' && word === null) {
      break;
    } else if (c === '$' || c === '`') {
      const [text, next] = expand(line, i);
      word = (word ?? '') + text;
      i = next;
    } else if (c === '>') {
      const fd = word !== null && /^\d$/.test(word) ? Number(word) : 1;
      if (fd !== 1 || word !== null) word = null;
      endWord();
      i += line[i + 1] === '>' ? 2 : 1;
      if (line[i] === '&') {
        cur.redirs.push({ fd, target: `&${line[i + 1] ?? ''}` });
        i += 2;
      } else redir = fd;
    } else if (c === ';' || c === '\n' || c === '&' || c === '|') {
      const two = line.slice(i, i + 2);
      if (c === '&' && two !== '&&') throw new Error('syntax error: background jobs are not modelled');
      endCmd();
      if (c === '|' && two !== '||') {
        i++;
        continue;
      }
      list.push({ op, pipeline });
      pipeline = [];
      op = two === '&&' || two === '||' ? two : ';';
      i += op === ';' ? 1 : 2;
    } else if ('()<{}'.includes(c) && word === null) {
      throw new Error(`syntax error: unexpected '${c}'`);
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endCmd();
  list.push({ op, pipeline });
  return list.map((l) => ({ op: l.op, pipeline: l.pipeline.filter((s) => s.argv.length || s.redirs.length) }));
}

/** `$?` (kept as a marker until run time), `$NAME` (unset here: empty), `` ` `` (not modelled). */
function expand(line: string, i: number): [string, number] {
  if (line[i] === '`' || line[i + 1] === '(') throw new Error('syntax error: command substitution is not modelled');
  if (line[i + 1] === '?') return [RC, i + 2];
  const m = /^[A-Za-z_][A-Za-z0-9_]*|^\{[^}]*\}/.exec(line.slice(i + 1));
  return m ? ['', i + 1 + m[0].length] : ['$', i + 1];
}
