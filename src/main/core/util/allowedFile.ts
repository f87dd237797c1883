/**
 * A file an agent asks Sightline to hand to a target (a browser upload, an APK to install) must
 * lie inside one of the folders the user allowed (`files.uploadRoots`), after every symlink is
 * resolved: no traversal, no link out of a root, nothing but a regular file. A path outside the
 * roots gets one answer whether it exists or not, so no agent can probe which files exist.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';

const HINT_ROOTS = 'The user can add the folder to files.uploadRoots in settings (Settings → Agent input).';

export async function allowedFile(path: string, roots: readonly string[], what = 'file'): Promise<string> {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) throw new SightlineError('INVALID_ARGUMENT', `"${path}" is not a file path.`, 'Give an absolute path.');
  if (!isAbsolute(path)) throw new SightlineError('INVALID_ARGUMENT', `"${path}" is not an absolute path.`, 'Give the absolute path of a file inside an allowed folder.');
  if (roots.length === 0) throw new SightlineError('PATH_REFUSED', `No folder is allowed for ${what}s.`, HINT_ROOTS);
  let real: string;
  let exists = true;
  try {
    real = await realpath(path);
  } catch {
    // Where it would be: its nearest existing folder, made real, and the rest of the path.
    exists = false;
    real = await realpathOfMissing(path);
  }
  const inside = await Promise.all(
    roots.map(async (root) => {
      const r = await realpath(root).catch(() => undefined);
      if (!r) return false;
      const rel = relative(r, real);
      return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
    }),
  );
  if (!inside.some(Boolean)) throw new SightlineError('PATH_REFUSED', `${path} is not inside a folder allowed for ${what}s (${roots.join(', ')}).`, HINT_ROOTS);
  if (!exists) throw new SightlineError('FILE_UNAVAILABLE', `${path} does not exist.`, 'Check the path.');
  const st = await stat(real);
  if (!st.isFile()) throw new SightlineError('PATH_REFUSED', `${path} is not a regular file.`, `Give the path of a ${what}.`);
  return real;
}

async function realpathOfMissing(path: string): Promise<string> {
  let dir = dirname(path);
  const rest = [basename(path)];
  for (;;) {
    try {
      return join(await realpath(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return path;
      rest.unshift(basename(dir));
      dir = dirname(dir);
    }
  }
}
