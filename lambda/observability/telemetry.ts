/**
 * Powertools Logger and Metrics, built once per cold start by the composition root.
 * Every metric carries the ClusterName dimension (pinned in the runtime contract).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

export interface TelemetryOptions {
  serviceName: string;
  metricsNamespace: string;
  clusterName: string;
  logLevel: string;
}

export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const logger = new Logger({ serviceName: options.serviceName, logLevel: options.logLevel as 'INFO' });
  const metrics = new Metrics({
    namespace: options.metricsNamespace,
    serviceName: options.serviceName,
    defaultDimensions: { ClusterName: options.clusterName },
    // Powertools' own warnings (e.g. an invocation with nothing to publish) go through our logger and its level.
    logger,
  });
  return { logger, metrics };
}
