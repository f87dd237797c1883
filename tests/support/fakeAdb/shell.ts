/**
 * The fake device's shell: quoting exactly as `sh -c` does it (so escaping bugs show), `;`, `&&`,
 * `||`, pipes and `>`/`2>&1` redirections (anything it does not model is an error), and the few
 * toybox commands Sightline's command lines use around the Android ones.
 */

/** Marks `$?` in a parsed word until run time. */
export const RC = '\u0000RC\u0000';

export interface CmdResult {
  out: Buffer;
  err: string;
  rc: number;
}

/** Runs a parsed line: `;`/`&&`/`||`, pipes (stdout to stdin), `>FILE` into `files`, `>/dev/null`, `2>&1`. */
export async function runShell(line: string, command: (argv: string[], stdin: Buffer) => Promise<CmdResult>, files: Map<string, Buffer>): Promise<CmdResult> {
  let rc = 0;
  const out: Buffer[] = [];
  let err = '';
  for (const { op, pipeline } of parseShell(line)) {
    if ((op === '&&' && rc !== 0) || (op === '||' && rc === 0)) continue;
    let stdin: Buffer = Buffer.alloc(0);
    for (const cmd of pipeline) {
      const argv = cmd.argv.map((a) => a.split(RC).join(String(rc)));
      const r = argv.length ? await command(argv, stdin) : { out: Buffer.alloc(0), err: '', rc: 0 };
      for (const { fd, target } of cmd.redirs) {
        if (target === '&1' || target === '&2') continue;
        if (fd === 1 && target !== '/dev/null') files.set(target, r.out);
        if (fd === 1) r.out = Buffer.alloc(0);
        else r.err = '';
      }
      stdin = r.out;
      err += r.err;
      rc = r.rc;
    }
    out.push(stdin);
  }
  return { out: Buffer.concat(out), err, rc };
}

/** toybox's `echo`, `true`, `grep [-iE] PATTERN`, `cat FILE`, `rm [-f] FILE…`; undefined for anything else. */
export function coreutil(name: string, args: string[], stdin: Buffer, files: Map<string, Buffer>): CmdResult | undefined {
  const ok = (s: string | Buffer): CmdResult => ({ out: Buffer.from(s), err: '', rc: 0 });
  switch (name.replace(/^\/system\/bin\//, '')) {
    case 'echo':
      return ok(`${args.join(' ')}\n`);
    case 'true':
      return ok('');
    case 'grep': {
      const flags = args.filter((a) => a.startsWith('-')).join('');
      const pattern = args.find((a) => !a.startsWith('-')) ?? '';
      const re = new RegExp(pattern, flags.includes('i') ? 'i' : '');
      const lines = stdin.toString().split('\n').filter((l) => re.test(l));
      return lines.length ? ok(`${lines.join('\n')}\n`) : { out: Buffer.alloc(0), err: '', rc: 1 };
    }
    case 'cat': {
      const f = files.get(args[0] ?? '');
      return f ? ok(f) : { out: Buffer.alloc(0), err: `cat: ${args[0] ?? ''}: No such file or directory\n`, rc: 1 };
    }
    case 'rm':
      for (const a of args) if (!a.startsWith('-')) files.delete(a);
      return ok('');
    default:
      return undefined;
  }
}

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
