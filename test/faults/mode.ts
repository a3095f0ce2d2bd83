/**
 * What differs between the operating modes in a fault scenario, in one place: which oracle
 * watches the controller's moves, which invariants a step end judges, who else acts between
 * passes (the kubelets; in attacher mode kcm first, which decides what is attached), and what
 * convergence means (in attacher mode kcm writes `volumesAttached`). Controller mode draws nothing
 * extra from the seed, so its seeds replay as before.
 */
import type { KubePod, KubePvc } from '../../lambda/core/kube.js';
import { checkConvergence, checkStep, type Violation } from '../../sandbox/oracle/checks.js';
import { AttacherLiveOracle } from '../../sandbox/oracle/attacher/live.js';
import type { Drained } from '../../sandbox/oracle/ledger.js';
import { LiveOracle } from '../../sandbox/oracle/live.js';
import { unwarnedMultiAttach, type PodEvent, type PodSide } from '../../sandbox/oracle/multi-attach-events.js';
import type { Kubelets } from '../../sandbox/kubelets.js';
import type { Truth } from '../../sandbox/oracle/truth.js';
import { MAX_WAIT_FOR_UNMOUNT_MS, type World } from './rig.js';

export interface ModeOracle {
  readonly violations: (Violation & { step: string })[];
  beginStep(label: string): Truth;
  observe(): void;
  stop(): void;
}

export interface ScenarioMode {
  oracle: ModeOracle;
  /** The cluster's own components act once: kcm (attacher mode), then the kubelets. */
  act(): void;
  /** Step-end invariants over the step's EC2 calls (A4 / 4 is judged against the store by the scenario). */
  stepEnd(before: Truth, after: Truth, drained: Pick<Drained, 'detaches' | 'mutations'>): Violation[];
  /** Invariant 4's name in this mode. */
  storeInvariant: 4 | 'A4';
  convergence(truth: Truth): Violation[];
  /** Spares a node's entry from invariant 5 (EC2 lost the pair behind our back) until the returned function is called. */
  pardonReported(volumeId: string, nodeName: string): () => void;
}

export function scenarioMode(world: World, kubelets: Kubelets): ScenarioMode {
  if (world.mode === 'attacher') return attacherMode(world, kubelets);
  const oracle = new LiveOracle(world.ec2, world.kube, { maxWaitForUnmountMs: MAX_WAIT_FOR_UNMOUNT_MS });
  return {
    oracle,
    act: () => void kubelets.run(),
    // 2 and 3 are judged live, at each DetachVolume.
    stepEnd: (before, after, drained) =>
      checkStep({ before, after, detaches: drained.detaches, mutations: drained.mutations, pardoned: oracle.pardons }).filter(
        (v) => v.invariant !== 2 && v.invariant !== 3,
      ),
    storeInvariant: 4,
    convergence: (truth) => [...checkConvergence(truth), ...unwarnedMultiAttach(truth, podSide(world))],
    pardonReported: (volumeId, nodeName) => oracle.pardon(volumeId, nodeName),
  };
}

function podSide(world: World): PodSide {
  return {
    pods: world.kube.list('Pod') as KubePod[],
    claims: world.kube.list('PersistentVolumeClaim') as KubePvc[],
    events: world.kube.list('Event') as PodEvent[],
  };
}

/**
 * Attacher mode: kcm decides the detaches (2 and 3 are its rules there, restated as A2 for us) and
 * writes node status (5 is its field); A5 and 6 hold as in controller mode, A1 at the step end.
 */
function attacherMode(world: World, kubelets: Kubelets): ScenarioMode {
  const oracle = new AttacherLiveOracle(world.ec2, world.kube);
  const kcm = world.kcm;
  if (kcm === undefined) throw new Error('attacher mode needs the simulated kcm');
  return {
    oracle,
    act: () => {
      kcm.step();
      kubelets.run();
    },
    stepEnd: (before, after, drained) => [
      ...checkStep({ before, after, mutations: drained.mutations })
        .filter((v) => v.invariant === 1 || v.invariant === 6)
        .map((v) => (v.invariant === 1 ? { ...v, invariant: 'A5' as const } : v)),
      ...oracle.stepEnd(after),
    ],
    storeInvariant: 'A4',
    convergence: (truth) => checkConvergence(truth, { nodeStatusBy: 'kcm' }),
    // kcm writes volumesAttached in this mode: invariant 5 is not ours to pardon (themes play controller mode only).
    pardonReported: () => {
      throw new Error('attacher mode judges no node-status entries of ours');
    },
  };
}
