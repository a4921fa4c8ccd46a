import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs here, so the compose file is checked structurally instead of by `docker compose config`.
describe('docker-compose.yml', () => {
  const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'));

  it('runs Redis with an append-only file on a volume', () => {
    expect(compose.services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(compose.services.redis.volumes[0]).toMatch(/^redis-data:/);
    expect(Object.keys(compose.volumes)).toContain('redis-data');
  });

  it('has a worker and a dashboard built from the Dockerfile and pointed at that Redis', () => {
    for (const name of ['worker', 'dashboard']) {
      expect(compose.services[name].build).toBe('.');
      expect(compose.services[name].environment.REDIS_URL).toBe('redis://redis:6379');
      expect(compose.services[name].depends_on.redis.condition).toBe('service_healthy');
    }
    expect(compose.services.worker.command[0]).toBe('worker');
    expect(compose.services.dashboard.command[0]).toBe('dashboard');
  });

  it('requires a dashboard token because the dashboard binds a non-loopback address', () => {
    expect(compose.services.dashboard.command).toContain('0.0.0.0');
    expect(compose.services.dashboard.environment.NIGHTSHIFT_DASHBOARD_TOKEN).toMatch(
      /^\$\{NIGHTSHIFT_DASHBOARD_TOKEN:\?/,
    );
  });

  it('gives workers a stop timeout above their drain grace period, metrics, and a pool profile of N workers', () => {
    const merged = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true });
    for (const name of ['worker', 'worker-pool']) {
      const service = merged.services[name];
      const graceSeconds = Number(service.environment.NIGHTSHIFT_SHUTDOWN_GRACE_SECONDS);
      const stop = /^(\d+)m$/.exec(service.stop_grace_period);
      expect(Number(stop?.[1]) * 60, name).toBeGreaterThan(graceSeconds + 30);
      expect(service.command).toEqual(expect.arrayContaining(['worker', '--metrics-port', '9464']));
    }
    expect(merged.services['worker-pool'].profiles).toEqual(['pool']);
    expect(merged.services['worker-pool'].deploy.replicas).toMatch(/^\$\{NIGHTSHIFT_WORKERS:-\d+\}$/);
  });

  it('uses an entrypoint that exists in the image', () => {
    const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/nightshift\.js"\]/);
    expect(fs.existsSync('bin/nightshift.js')).toBe(true);
  });
});
