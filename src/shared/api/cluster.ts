import { z } from 'zod';
import { ClusterJob, ClusterStatus, CollectResult, NodeAnalysis } from '../cluster';

/** Slurm jobs (`caplab cluster`): their state, collecting their results, cancelling, and node-to-node analysis. */
export const clusterMethods = {
  /** Cluster jobs this database submitted (`caplab cluster submit`), newest first. */
  listClusterJobs: { input: z.object({}).strict(), output: z.array(ClusterJob) },
  /** squeue/sacct and the tasks' result files: each array task's state and runs. */
  clusterStatus: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: ClusterStatus },
  /** Merges the tasks' results into one sweep with a node dimension (idempotent; partial while the job runs). */
  collectCluster: { input: z.object({ job: z.string().min(1).max(4096) }).strict(), output: CollectResult },
  /** scancel; every node restores its own limits. wait: until Slurm lists none of its tasks. */
  cancelCluster: {
    input: z.object({ job: z.string().min(1).max(4096), wait: z.boolean().optional() }).strict(),
    output: z.object({ job_id: z.string(), cancelled: z.boolean(), remaining: z.number().int() }),
  },
  /** Node-to-node analysis of a sweep: spread across nodes and GPUs, outlier nodes, best cap per node and fleet. */
  analyzeNodes: { input: z.object({ sweep_id: z.number().int() }).strict(), output: NodeAnalysis },
} as const;
