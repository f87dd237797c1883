/** The seven tasks of the economy benchmark: their pages, what the agent is asked, and how the page says it was done. */
import type { Call } from './economyAgent.ts';

export const USER = 'ada';
export const PASSWORD = 'correct horse battery';
export const FULL_NAME = 'Ada Lovelace';
export const ORDER = ['Run the tests', 'Plan the release', 'Tag the commit', 'Write the notes'];
export const HEADING = 'revenue grew 12 % to 4.8 million euros';

export type TaskId = 'signin' | 'search' | 'form' | 'dialog' | 'later' | 'reorder' | 'read';

export interface Task {
  id: TaskId;
  n: number;
  title: string;
  page: string;
  /** Whether the page's window.state (and, for a reading task, the agent's answer) shows the task done. */
  check(state: unknown, answer: string): boolean;
}

type Submits<T> = { submits?: T[] } | undefined;

export const TASKS: Task[] = [
  {
    id: 'signin',
    n: 1,
    title: 'sign in',
    page: 'signin.html',
    check: (s) => {
      const x = (s as Submits<{ user: string; password: string }>)?.submits;
      return x?.length === 1 && x[0]!.user === USER && x[0]!.password === PASSWORD;
    },
  },
  {
    id: 'search',
    n: 2,
    title: 'search and open a result',
    page: 'search.html',
    check: (s) => JSON.stringify((s as { opened?: string[] } | undefined)?.opened) === JSON.stringify(['Lemon marmalade']),
  },
  {
    id: 'form',
    n: 3,
    title: 'form: text, select, checkbox, file',
    page: 'form.html',
    check: (s) => JSON.stringify((s as Submits<unknown>)?.submits) === JSON.stringify([{ name: FULL_NAME, country: 'pt', news: true, files: ['cv.pdf'] }]),
  },
  {
    id: 'dialog',
    n: 4,
    title: 'confirm dialog',
    page: 'dialog.html',
    check: (s) => {
      const x = s as { asked?: number; deleted?: boolean } | undefined;
      return x?.asked === 1 && x.deleted === true;
    },
  },
  { id: 'later', n: 5, title: 'content that appears later', page: 'later.html', check: (s) => (s as { reserved?: boolean } | undefined)?.reserved === true },
  {
    id: 'reorder',
    n: 6,
    title: 'drag to reorder',
    page: 'reorder.html',
    check: (s) => JSON.stringify((s as { order?: string[] } | undefined)?.order) === JSON.stringify(ORDER),
  },
  { id: 'read', n: 7, title: 'read a heading below the fold', page: 'article.html', check: (_s, answer) => answer.includes(HEADING) },
];

/**
 * What an agent does for each task with one server's tools, given the page's URL: it may only
 * act on what the answers said. Returns the answer for a reading task.
 */
export type Agent = Record<TaskId, (call: Call, url: string) => Promise<string | void>>;
