import { create } from 'zustand';
import { persist } from 'zustand/middleware';

export type Theme = 'dark' | 'light';

export interface SettingsState {
  theme: Theme;
  /** Width of the live-trace window, minutes. */
  liveWindowMin: number;
  /** How often live plots redraw, ms. */
  refreshMs: number;
  /** Largest number of points one live trace draws (min/max decimated). */
  maxPoints: number;
  setTheme(t: Theme): void;
  toggleTheme(): void;
  set(patch: Partial<Pick<SettingsState, 'liveWindowMin' | 'refreshMs' | 'maxPoints'>>): void;
}

export const useSettings = create<SettingsState>()(
  persist(
    (set, get) => ({
      theme: 'dark',
      liveWindowMin: 10,
      refreshMs: 500,
      maxPoints: 600,
      setTheme: (theme) => set({ theme }),
      toggleTheme: () => set({ theme: get().theme === 'dark' ? 'light' : 'dark' }),
      set: (patch) => set(patch),
    }),
    { name: 'caplab.settings', version: 1 },
  ),
);
