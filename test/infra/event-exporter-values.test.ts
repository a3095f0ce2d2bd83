/**
 * The exporter's Helm values and the stack must agree: what the exporter sends is exactly what
 * the stack's rule matches, on the bus the stack creates by default.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../infra/contracts.js';
import { CLUSTER_EVENT_KINDS, CLUSTER_EVENT_REASONS, EXPORTER_DETAIL_TYPE, EXPORTER_SOURCE } from '../../lambda/handlers/contracts.js';
import { readSettings } from '../../infra/settings.js';

interface Values {
  serviceAccount: { create: boolean; annotations: Record<string, string> };
  config: {
    clusterName: string;
    route: { routes: { match: { receiver: string; kind: string; reason: string }[] }[] };
    receivers: {
      name: string;
      eventbridge: { source: string; detailType: string; eventBusName: string; region: string; details?: unknown };
    }[];
  };
}

const values = parse(readFileSync(path.join(REPO_ROOT, 'infra/k8s/event-exporter-values.yaml'), 'utf8')) as Values;
const cdkContext = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
const [rule] = values.config.route.routes.flatMap((route) => route.match);
const [receiver] = values.config.receivers;

/** Every value the exporter's regular expression (anchored alternation) accepts, from the rule's own text. */
const alternatives = (regex: string) => /^\^\((.*)\)\$$/.exec(regex)?.[1]?.split('|') ?? [];

describe('event exporter values', () => {
  it("sends with the source and detail type the stack's rule matches, and the full event as detail", () => {
    expect(receiver?.eventbridge).toMatchObject({ source: EXPORTER_SOURCE, detailType: EXPORTER_DETAIL_TYPE });
    expect(receiver?.eventbridge.details).toBeUndefined();
  });

  it('puts events on the bus the stack creates for the cdk.json cluster', () => {
    const settings = readSettings((key) => cdkContext[key]);
    expect(receiver?.eventbridge.eventBusName).toBe(settings.eventBusName);
    expect(values.config.clusterName).toBe(settings.clusterName);
  });

  it("forwards exactly the kinds and reasons the stack's rule routes to a targeted pass", () => {
    expect(values.config.route.routes.flatMap((route) => route.match)).toHaveLength(1);
    expect(rule?.receiver).toBe(receiver?.name);
    expect(alternatives(rule?.kind ?? '')).toEqual([...CLUSTER_EVENT_KINDS]);
    expect(alternatives(rule?.reason ?? '')).toEqual([...CLUSTER_EVENT_REASONS]);
  });

  it('runs under a service account annotated with an IAM role (IRSA)', () => {
    expect(values.serviceAccount.create).toBe(true);
    expect(values.serviceAccount.annotations['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::\d{12}:role\/.+/);
  });
});
