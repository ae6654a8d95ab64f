// Each page's component, keyed by its id in src/shared/pages.ts (the type requires one per page, and no other).
import type { ComponentType } from 'react';
import type { PageId } from '../../shared/pages';
import { ClusterPage } from './ClusterPage';
import { ConsolePage } from './ConsolePage';
import { DatasetsPage } from './DatasetsPage';
import { DesignerPage } from './DesignerPage';
import { DevicesPage } from './DevicesPage';
import { FacilityPage } from './FacilityPage';
import { HistoryPage } from './HistoryPage';
import { OverlayPage } from './OverlayPage';
import { ResultsPage } from './ResultsPage';
import { TunePage } from './TunePage';

/** A page gets the route's parameter (#/results/12: "12"), or null. */
export type PageComponent = ComponentType<{ param: string | null }>;

export const pageComponents: Record<PageId, PageComponent> = {
  devices: DevicesPage,
  designer: DesignerPage,
  console: ConsolePage,
  results: ResultsPage,
  history: HistoryPage,
  datasets: DatasetsPage,
  facility: FacilityPage,
  cluster: ClusterPage,
  overlay: OverlayPage,
  tune: TunePage,
};
