import { create } from 'zustand';

export interface Toast {
  id: number;
  kind: 'info' | 'ok' | 'warn' | 'error';
  text: string;
}

interface ToastState {
  toasts: Toast[];
  push(kind: Toast['kind'], text: string, ms?: number): void;
  dismiss(id: number): void;
}

let next = 1;

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  push(kind, text, ms = kind === 'error' ? 10_000 : 5000) {
    const id = next++;
    set({ toasts: [...get().toasts.slice(-4), { id, kind, text }] });
    if (ms > 0) setTimeout(() => get().dismiss(id), ms);
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

export const toast = (kind: Toast['kind'], text: string) => useToasts.getState().push(kind, text);
export const toastError = (e: unknown) => toast('error', e instanceof Error ? e.message : String(e));
