import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
const procs: Array<{ cmd: string; ms: number }> = [];
const original = childProcess.spawn;
childProcess.spawn = ((command: string, ...rest: unknown[]) => {
  const child = (original as (...args: unknown[]) => ChildProcess)(command, ...rest);
  const args = Array.isArray(rest[0]) ? (rest[0] as string[]) : [];
  const start = performance.now();
  child.once('close', () =>
    procs.push({
      cmd: `${command.split('/').pop()} ${command.endsWith('git') ? args.find((a) => !a.startsWith('-') && !a.includes('=')) : ''}`,
      ms: performance.now() - start,
    }),
  );
  return child;
}) as typeof childProcess.spawn;
syncBuiltinESMExports();
const { measureMergeQueue } = await import('./merge-queue.js');
const result = await measureMergeQueue({ sizes: [24], merges: 8, allMerges: 0, log: console.log });
const spans = exporter.getFinishedSpans();
const agg = new Map<string, number[]>();
for (const s of spans) {
  const ms = s.duration[0] * 1000 + s.duration[1] / 1e6;
  agg.set(s.name, [...(agg.get(s.name) ?? []), ms]);
}
const merges = 9;
for (const [name, list] of agg)
  console.log(
    name.padEnd(24),
    list.length,
    (list.reduce((a, b) => a + b, 0) / merges).toFixed(0),
    'ms per merge',
  );
const p = new Map<string, number[]>();
for (const x of procs) p.set(x.cmd, [...(p.get(x.cmd) ?? []), x.ms]);
for (const [name, list] of p)
  console.log(
    'proc',
    name.padEnd(24),
    list.length,
    (list.reduce((a, b) => a + b, 0) / merges).toFixed(0),
    'ms per merge',
  );
console.log(JSON.stringify(result.sizes));
