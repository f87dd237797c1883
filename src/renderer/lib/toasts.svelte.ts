/** Transient notices (saved, captured, failed), announced to screen readers. */

export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  message: string;
  action?: { label: string; run: () => void };
}

export const toasts = $state<{ items: Toast[] }>({ items: [] });
let next = 1;

export function toast(message: string, kind: Toast['kind'] = 'info', action?: Toast['action']): void {
  const id = next++;
  toasts.items.push(action ? { id, kind, message, action } : { id, kind, message });
  setTimeout(() => dismiss(id), kind === 'error' ? 8000 : 4000);
}

export function dismiss(id: number): void {
  toasts.items = toasts.items.filter((t) => t.id !== id);
}
