/**
 * The audit's planted bugs (issue 17): each a small, realistic source change in the guard of one
 * DESIGN §11 invariant. `npm run audit:planted` applies them one at a time to a scratch copy and
 * records which suites kill them. Every `find` must occur exactly once in its file: when the code
 * moves, the audit fails loudly instead of silently planting nothing.
 */

export interface Edit {
  file: string;
  find: string;
  replace: string;
}

export interface PlantedBug {
  name: string;
  /** The invariant (DESIGN §11) whose guard the bug removes. */
  invariant: string;
  edits: Edit[];
}

export const PLANTED_BUGS: PlantedBug[] = [
  {
    name: 'plan-multi-attach',
    invariant: '1: the plan no longer checks where an exclusive volume is held',
    edits: [
      {
        file: 'lambda/core/plan-attach.ts',
        find: 'const holders = exclusive ? holdersElsewhere(ctx, record, target) : [];',
        replace: 'const holders: string[] = [];',
      },
    ],
  },
  {
    name: 'lock-multi-attach',
    invariant: '1: taking the attach lock no longer refuses an exclusive volume used by another node',
    edits: [
      {
        file: 'lambda/core/transitions.ts',
        find: 'if (!next.multiAttach && others.size > 0) {',
        replace: 'if (!next.multiAttach && others.size < 0) {',
      },
    ],
  },
  {
    name: 'lock-without-version',
    invariant: '1, 6: a record write checks only that the item exists, not the version it was read at',
    edits: [
      {
        file: 'lambda/adapters/dynamodb/writes.ts',
        find: ': replaceVolume(ctx, record, fenced(versionIs(record.version)));',
        replace: ": replaceVolume(ctx, record, fenced({ expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' }, values: {} }));",
      },
    ],
  },
  {
    name: 'no-volumes-in-use-recheck',
    invariant: '2: a detach trusts the pass-start read of volumesInUse',
    edits: [
      {
        file: 'lambda/reconcile/controller/reports.ts',
        find: "if (unmounted && live.inUse.includes(action.uniqueName)) return 'mounted again since the pass read the node';",
        replace: '',
      },
    ],
  },
  {
    name: 'failed-page-ends-list',
    invariant: '3: a page that fails to load ends the list as if it were complete',
    edits: [
      {
        file: 'lambda/adapters/kubernetes/paged-list.ts',
        find: 'const response = await fetchPage(token === undefined ? { limit: options.pageSize } : { limit: options.pageSize, _continue: token });',
        replace:
          'const response = await fetchPage(token === undefined ? { limit: options.pageSize } : { limit: options.pageSize, _continue: token }).catch((): Page<T> => ({ items: [] }));',
      },
    ],
  },
  {
    name: 'act-before-intent',
    invariant: '1, 4: AttachVolume is sent before the operation (intent and lock) is written',
    edits: [
      {
        file: 'lambda/reconcile/pass/execute-attach.ts',
        find: '  const goAhead = ctx.mode.beforeAttach(ctx, planned);\n',
        replace: [
          '  const goAhead = ctx.mode.beforeAttach(ctx, planned);',
          '  const early = await ctx.deps.blockStorage.attach({',
          '    volumeId: planned.volumeId,',
          '    instanceId: planned.instanceId,',
          "    devices: deviceClaims(ctx, { volumeId: planned.volumeId, instanceId: planned.instanceId, operationId: 'before-intent', expiresAt: ctx.deps.clock() + 60_000 }),",
          '  });',
          '',
        ].join('\n'),
      },
      {
        file: 'lambda/reconcile/pass/execute-attach.ts',
        find: [
          '    ctx.deps.blockStorage.attach({',
          '      volumeId: action.volumeId,',
          '      instanceId: action.instanceId,',
          '      devices,',
          '      ready: goAhead,',
          '      ...(seen ? { seen } : {}),',
          '    }),',
        ].join('\n'),
        replace: '    early,',
      },
    ],
  },
  {
    name: 'detach-before-unreport',
    invariant: "2, 5: detaches run before the node's reported list is updated, and do not wait for it",
    edits: [
      {
        file: 'lambda/reconcile/pass/execute.ts',
        find: "  results.push(...(await ctx.mode.unreport(ctx, of('unreport'))));\n",
        replace: '',
      },
      {
        file: 'lambda/reconcile/pass/execute.ts',
        find: '  results.push(...perVolume.flat());\n',
        replace: "  results.push(...perVolume.flat());\n  results.push(...(await ctx.mode.unreport(ctx, of('unreport'))));\n",
      },
      {
        file: 'lambda/reconcile/controller/reports.ts',
        find: 'action.requiresUnreport && !side.nodeStatus.wasUnreported(action.volumeId, action.nodeName)',
        replace: 'action.requiresUnreport && side.nodeStatus.wasUnreported(action.volumeId, action.nodeName) === undefined',
      },
    ],
  },
  {
    name: 'stopping-as-stopped',
    invariant: '2: an instance still stopping (its OS may be using the volume) is force-detached as if stopped',
    edits: [
      {
        file: 'lambda/core/detach-decision.ts',
        find: "if (instanceState === 'stopped') {",
        replace: "if (instanceState === 'stopped' || instanceState === 'stopping') {",
      },
    ],
  },
  {
    name: 'node-status-failure-swallowed',
    invariant: '2, 5: a nodes/status patch failing with anything but 404/409 reads as updated',
    edits: [
      {
        file: 'lambda/adapters/kubernetes/node-status.ts',
        find: 'if (!isConflict(error)) throw new Error(`patching nodes/${nodeName}/status failed: ${describeApiError(error)}`, { cause: error });',
        replace: "if (!isConflict(error)) return 'updated';",
      },
    ],
  },
  {
    name: 'no-operation-fence',
    invariant: '1, 4: a write after an operation was taken over no longer checks the operation id',
    edits: [
      {
        file: 'lambda/adapters/dynamodb/writes.ts',
        find: 'const fenced = (condition: Condition) => (fence ? allOf(condition, operationIsHeldBy(fence.lockKey, fence.operationId)) : condition);',
        replace: 'const fenced = (condition: Condition) => (fence ? condition : condition);',
      },
    ],
  },
  {
    name: 'unmount-timeout-inclusive',
    invariant: '2: the force detach fires at exactly maxWaitForUnmount instead of after it',
    edits: [{ file: 'lambda/core/detach-decision.ts', find: 'if (waited > maxWait) {', replace: 'if (waited >= maxWait) {' }],
  },
  {
    name: 'attaching-reported-attached',
    invariant: '5: the node status lists a volume EC2 is still attaching',
    edits: [
      {
        file: 'lambda/core/report.ts',
        find: "if (attachment.state !== 'attached') continue;",
        replace: "if (attachment.state !== 'attached' && attachment.state !== 'attaching') continue;",
      },
    ],
  },
  {
    name: 'mass-detach-guard-off',
    invariant: '3: every planned detach goes ahead, however many (per pass and per shared window)',
    edits: [
      {
        file: 'lambda/core/guards.ts',
        find: 'if (!config || attachedCount <= config.minAttached) return undefined;',
        replace: 'return undefined;',
      },
    ],
  },
  {
    name: 'mass-detach-window-bypassed',
    invariant: '3: overlapping passes each detach their own fraction; the shared window is never claimed',
    edits: [
      {
        file: 'lambda/reconcile/pass/mass-detach-window.ts',
        find: 'if (!window || planned.massDetachLimit === undefined || wanted === 0) return planned;',
        replace: 'return planned;',
      },
    ],
  },
  {
    name: 'lost-attach-forgotten',
    invariant: '1, 4: an attach EC2 accepted but does not show yet is dropped instead of kept uncertain',
    edits: [
      {
        file: 'lambda/core/accepted-attach.ts',
        find: '{ ec2MayStillBeWorking: true }',
        replace: '{ ec2MayStillBeWorking: false }',
      },
    ],
  },
  {
    name: 'incomplete-read-detaches',
    invariant: '3: a pass whose cluster read was incomplete still detaches unneeded volumes',
    edits: [
      {
        file: 'lambda/core/plan-detach.ts',
        find: "  if (!ctx.desired.complete) return { detach: false, code: 'incomplete-input', why: INCOMPLETE_INPUT };\n",
        replace: '',
      },
    ],
  },
  {
    name: 'fence-trusts-pass-start',
    invariant: 'A6: an EC2 mutating call trusts the Lease as the pass found it at its start, never reading it again',
    edits: [
      {
        file: 'lambda/reconcile/attacher/fence.ts',
        find: 'if (this.confirmedAt !== undefined && this.options.now() - this.confirmedAt < this.options.rereadMs) return true;',
        replace: 'if (this.confirmedAt !== undefined) return true;',
      },
    ],
  },
  {
    name: 'release-without-asking-ec2',
    invariant: 'A3: a deleting VolumeAttachment with our finalizer and no record of ours is let go without asking EC2',
    edits: [
      {
        file: 'lambda/core/attacher/status.ts',
        find: '  return !ec2ShowsAttachment({ instanceId: target.instanceId }, observation);\n}',
        replace: '  return true;\n}',
      },
    ],
  },
];
