import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isConnectionError, watchRedisOutages } from '../../../orchestrator/redis-outage.js';

/** An ioredis-like client: `status` and `ready` events. */
class Client extends EventEmitter {
  status = 'ready';
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });

describe('a Redis outage', () => {
  it('is told once when it starts and once when Redis is back, whatever the number of errors and connections', () => {
    const primary = new Client();
    const queue = new EventEmitter();
    const lines: string[] = [];
    let clock = 1_000;
    const watch = watchRedisOutages({
      url: 'redis://h:6390',
      primary,
      notify: (line) => lines.push(line),
      now: () => clock,
    });
    watch.watch(primary);
    watch.watch(queue);
    // The queue's connection noticed first: the primary still answers, so this is not an outage yet.
    queue.emit('error', refused());
    expect(lines).toEqual([]);
    primary.status = 'reconnecting';
    for (let attempt = 0; attempt < 50; attempt++) (attempt % 2 ? queue : primary).emit('error', refused());
    expect(watch.down).toBe(true);
    clock += 12_400;
    primary.status = 'ready';
    primary.emit('ready');
    queue.emit('error', refused());
    expect(lines).toEqual([
      'lost the connection to Redis at redis://h:6390 (connect ECONNREFUSED 127.0.0.1:6390); retrying until it is back — a session in flight may be redone from its last commit.',
      'connected to Redis at redis://h:6390 again after 12s; going on.',
    ]);
    // A second outage is told again.
    primary.status = 'connecting';
    primary.emit('error', refused());
    expect(lines).toHaveLength(3);
  });

  it('says nothing for connections closed on purpose, nor for errors Redis answered with', () => {
    const primary = new Client();
    const lines: string[] = [];
    const watch = watchRedisOutages({ url: 'redis://h:6390', primary, notify: (line) => lines.push(line) });
    watch.watch(primary);
    primary.emit('error', new Error('WRONGTYPE Operation against a key holding the wrong kind of value'));
    watch.close();
    primary.status = 'end';
    primary.emit('error', new Error('Connection is closed.'));
    expect(lines).toEqual([]);
    expect(isConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isConnectionError(new Error('WRONGTYPE Operation'))).toBe(false);
  });
});
