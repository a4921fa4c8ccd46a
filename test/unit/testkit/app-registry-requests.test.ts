import { describe, expect, it } from 'vitest';
import { countRequests } from '../../../testkit/app-registry.js';

// verdaccio 6 logs each request three times: once as it arrives ("requested"), twice as it answers. Counting every
// line that names a tarball counted one npm download as three.
const arrived = (url: string) =>
  JSON.stringify({
    level: 30,
    sub: 'in',
    req: { method: 'GET', url, query: {}, params: {}, remoteAddress: '127.0.0.1' },
    msg: `127.0.0.1 requested 'GET ${url}'`,
  });
const answered = (url: string, out: number) =>
  JSON.stringify({
    level: 25,
    sub: 'in',
    request: { method: 'GET', url },
    status: 200,
    bytes: { in: 0, out },
    msg: `200, user: null(127.0.0.1), req: 'GET ${url}', bytes: 0/${out}`,
  });

describe('countRequests', () => {
  it('counts a request once, not once per log line that names it', () => {
    const counter = countRequests();
    const tarball = '/sql.js/-/sql.js-1.17.0.tgz';
    const log = [
      arrived(tarball),
      answered(tarball, 0),
      answered(tarball, 13_919_734),
      arrived('/dayjs'),
      answered('/dayjs', 7_949),
      arrived(`${tarball}?write=true`),
      answered(tarball, 13_919_734),
      '',
    ].join('\n');
    counter.add(log);
    expect(counter.count(tarball)).toBe(2);
    expect(counter.count('/dayjs')).toBe(1);
    expect(counter.count('/dayjs/-/dayjs-1.11.23.tgz')).toBe(0);
  });

  it('joins a line split across chunks and skips what is not JSON', () => {
    const counter = countRequests();
    const line = arrived('/sql.js/-/sql.js-1.17.0.tgz');
    counter.add(`(node:1) Warning: Verdaccio doesn't need superuser privileges\n${line.slice(0, 40)}`);
    expect(counter.count('/sql.js/-/sql.js-1.17.0.tgz')).toBe(0);
    counter.add(`${line.slice(40)}\n`);
    expect(counter.count('/sql.js/-/sql.js-1.17.0.tgz')).toBe(1);
  });
});
