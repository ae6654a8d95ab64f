import type { DeviceInfo } from '../../shared/device';

/** The live-store id of a stored device key (`host/backend:index/uuid`): `backend:index`, as samples carry it. */
export function liveDeviceId(deviceKey: string): string {
  const parts = deviceKey.split('/');
  return parts.length >= 3 ? parts[parts.length - 2]! : deviceKey;
}

/** "GPU 0 H100 SXM" for a device id or stored key; the devices list gives the model where it knows the device. */
export function deviceLabel(idOrKey: string, devices: readonly Pick<DeviceInfo, 'id' | 'kind' | 'index' | 'name'>[]): string {
  const id = liveDeviceId(idOrKey);
  const d = devices.find((x) => x.id === id);
  if (d) return `${d.kind.toUpperCase()} ${d.index} ${d.name.replace(/ \(simulated\)$/, '')}`;
  const m = /^([\w-]+):(\d+)$/.exec(id);
  if (!m) return id;
  return m[1] === 'rapl' ? `CPU ${m[2]}` : `GPU ${m[2]}`;
}
