import { createContext } from 'react';
import type { PlanIssue } from '../../../shared/api/plans';

/** The plan check's problems, for the fields to show their own. */
export const PlanIssuesContext = createContext<readonly PlanIssue[]>([]);
