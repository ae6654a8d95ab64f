import { useEffect, useState } from 'react';
import { live } from '../state/live';

/** Re-renders the caller at most every `ms` while live data changes. */
export function useLiveTick(ms = 1000): number {
  const [v, setV] = useState(live.version);
  useEffect(() => {
    const timer = setInterval(() => setV((old) => (old === live.version ? old : live.version)), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return v;
}
