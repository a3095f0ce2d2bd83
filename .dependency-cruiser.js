/**
 * The walls of the tree, checked by `npm run lint` (dependency-cruiser reads every import, type-only
 * ones included). The core stays pure, the reconcile layer talks to the world only through ports,
 * the shared pass knows neither mode, the two modes do not know each other, and no import cycle
 * exists anywhere.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'No import cycle anywhere in the tree, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'lambda/core imports nothing outside itself, at any depth: no SDK, no Node built-in, no other layer.',
      from: { path: '^lambda/core/' },
      to: { pathNot: '^lambda/core/' },
    },
    {
      name: 'ports-are-interfaces',
      severity: 'error',
      comment: 'Ports speak the core vocabulary only; they know no adapter, pass or handler.',
      from: { path: '^lambda/ports/' },
      to: { pathNot: '^lambda/(core|ports)/' },
    },
    {
      name: 'reconcile-through-ports',
      severity: 'error',
      comment: 'The reconcile layer reaches Kubernetes, DynamoDB and EC2 through ports, never an adapter or an SDK.',
      from: { path: '^lambda/reconcile/' },
      to: {
        path: ['^lambda/(adapters|handlers|cli|observability)/', '^lambda/composition', '^node_modules/(@aws-sdk|@smithy|@kubernetes)/'],
      },
    },
    {
      name: 'pass-knows-no-mode',
      severity: 'error',
      comment: 'reconcile/pass is the machinery both modes share: it imports neither mode, nor the selector.',
      from: { path: '^lambda/reconcile/pass/' },
      to: { path: ['^lambda/reconcile/(controller|attacher)/', '^lambda/reconcile/operating-mode'] },
    },
    {
      name: 'pass-knows-no-cluster',
      severity: 'error',
      comment: "The shared pass never talks to Kubernetes: what each mode writes goes through the mode's side of the seam.",
      from: { path: '^lambda/reconcile/pass/' },
      to: { path: '^lambda/ports/cluster' },
    },
    {
      name: 'watch-knows-no-mode',
      severity: 'error',
      comment: 'reconcile/watch is the watcher both modes share: a mode hands it its kinds and targets through operating-mode.ts.',
      from: { path: '^lambda/reconcile/watch/' },
      to: { path: ['^lambda/reconcile/(controller|attacher)/', '^lambda/reconcile/operating-mode'] },
    },
    {
      name: 'pass-knows-no-watcher',
      severity: 'error',
      comment: 'A pass runs the same whatever started it: the pass machinery never imports the watcher.',
      from: { path: '^lambda/reconcile/pass/' },
      to: { path: '^lambda/reconcile/watch/' },
    },
    {
      name: 'controller-knows-not-attacher',
      severity: 'error',
      comment: 'One mode does not import the other; what they share lives in reconcile/pass or the core.',
      from: { path: '^lambda/reconcile/controller/' },
      to: { path: ['^lambda/reconcile/attacher/', '^lambda/reconcile/operating-mode'] },
    },
    {
      name: 'attacher-knows-not-controller',
      severity: 'error',
      comment: 'One mode does not import the other; what they share lives in reconcile/pass or the core.',
      from: { path: '^lambda/reconcile/attacher/' },
      to: { path: ['^lambda/reconcile/controller/', '^lambda/reconcile/operating-mode'] },
    },
    {
      name: 'adapters-below-reconcile',
      severity: 'error',
      comment: 'Adapters implement ports; they never reach up into a pass, a handler or the composition root.',
      from: { path: '^lambda/adapters/' },
      to: { path: ['^lambda/(reconcile|handlers|cli)/', '^lambda/composition'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|cdk\\.out|coverage|results|\\.sandbox|\\.stryker-tmp)/' },
    // Type-only imports are real dependencies between files: a cycle through them is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
