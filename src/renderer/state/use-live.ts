import { useEffect, useState } from 'react';
import { live } from './live';

/** Re-renders the caller at most every `ms` while the source's data changes (the live store by default). */
export function useLiveTick(ms = 1000, source: { readonly version: number } = live): number {
  const [v, setV] = useState(source.version);
  useEffect(() => {
    const timer = setInterval(() => setV((old) => (old === source.version ? old : source.version)), ms);
    return () => clearInterval(timer);
  }, [ms, source]);
  return v;
}
