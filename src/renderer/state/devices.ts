import { create } from 'zustand';
import type { DeviceInfo } from '../../shared/device';
import { api } from '../api/client';

interface DevicesState {
  devices: DeviceInfo[];
  backend: string;
  reason: string;
  loading: boolean;
  error: string | null;
  loadedAt: number | null;
  load(): Promise<void>;
}

export const useDevices = create<DevicesState>()((set) => ({
  devices: [],
  backend: '',
  reason: '',
  loading: false,
  error: null,
  loadedAt: null,
  async load() {
    set({ loading: true });
    try {
      const r = await api.listDevices({});
      set({ devices: r.devices, backend: r.backend, reason: r.reason, error: null, loading: false, loadedAt: Date.now() });
    } catch (e) {
      set({ error: (e as Error).message, loading: false });
    }
  },
}));
