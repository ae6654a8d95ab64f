import { useEffect, useState } from 'react';
import { onConnection } from '../api/client';
import type { ConnectionState } from '../api/transport';

/** The transport's connection state (the App banner and pages that must not guess past "Not authorised"). */
export function useConnection(): ConnectionState {
  const [s, setS] = useState<ConnectionState>('connecting');
  useEffect(() => onConnection(setS), []);
  return s;
}
