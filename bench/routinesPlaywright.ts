/**
 * The economy tasks' steps written by hand in Playwright (playwright-core driving the bench's
 * Chromium over CDP): what a person would write to do each task, the baseline a routine's replay
 * is timed against. Each returns the answer of a reading task.
 */
import type { Page } from 'playwright-core';
import { FULL_NAME, PASSWORD, USER, type TaskId } from './economyTasks.ts';

export const handWritten: Record<TaskId, (page: Page, file: string) => Promise<string | void>> = {
  async signin(page) {
    await page.getByLabel('Username', { exact: true }).fill(USER);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  },
  async search(page) {
    await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('marmalade');
    await page.getByRole('searchbox', { name: 'Search', exact: true }).press('Enter');
    await page.getByRole('link', { name: 'Lemon marmalade', exact: true }).click();
  },
  async form(page, file) {
    await page.getByLabel('Full name', { exact: true }).fill(FULL_NAME);
    await page.getByLabel('Country', { exact: true }).selectOption({ label: 'Portugal' });
    await page.getByLabel('Send me the newsletter', { exact: true }).setChecked(true);
    await page.getByLabel('Attachment', { exact: true }).setInputFiles(file);
    await page.getByRole('button', { name: 'Send application', exact: true }).click();
  },
  async dialog(page) {
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete draft', exact: true }).click();
    // The click returns before the dialog is answered: the task is done when the draft is gone.
    await page.getByText('Draft deleted.').waitFor();
  },
  async later(page) {
    await page.getByRole('button', { name: 'Check availability', exact: true }).click();
    await page.getByRole('button', { name: 'Reserve now', exact: true }).click();
  },
  async reorder(page) {
    await page.getByText('Run the tests', { exact: true }).dragTo(page.getByText('Plan the release', { exact: true }));
  },
  async read(page) {
    return (await page.getByRole('heading').last().textContent()) ?? '';
  },
};
