/**
 * What the service's metrics cost per request (prom-client, service/metrics.ts): the hook's own
 * work (a counter and a histogram by method, route and status) timed alone, and whole Fastify
 * requests (inject) with and without the hook, in interleaved rounds; plus one scrape's text.
 */
import Fastify from 'fastify';
import { ServiceMetrics } from '../service/metrics.js';
import { RateLimiter } from '../service/limits.js';
import { DEFAULT_LIMITS, ROUTES } from '../spec/index.js';

const ROUTE_NAMES = ROUTES.map((r) => r.path);

async function app(withMetrics: boolean, metrics: ServiceMetrics) {
  const a = Fastify({ logger: false });
  if (withMetrics) a.addHook('onResponse', async (req, reply) => metrics.observe(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime));
  a.get('/v1/x/:id', async () => ({ ok: true }));
  await a.ready();
  return a;
}

export async function benchMetrics(): Promise<Record<string, number | string>> {
  const metrics = new ServiceMetrics(new RateLimiter(DEFAULT_LIMITS), { processMetrics: false });
  // the hook alone, over every route template and three statuses (the label sets a busy service has)
  const n = 200_000;
  const statuses = [200, 422, 429];
  for (let i = 0; i < 20_000; i++) metrics.observe('GET', ROUTE_NAMES[i % ROUTE_NAMES.length], statuses[i % 3]!, 3);
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) metrics.observe('GET', ROUTE_NAMES[i % ROUTE_NAMES.length], statuses[i % 3]!, (i % 100) / 10);
  const cpu = process.cpuUsage(c0);
  const observeCpuNs = ((cpu.user + cpu.system) * 1000) / n;
  // whole requests through Fastify, with and without the hook, interleaved so load drifts hit both
  const plain = await app(false, metrics);
  const hooked = await app(true, metrics);
  const per = 3000;
  const rounds = 5;
  // CPU time, not wall: on a shared machine the wall clock measures the neighbours
  const time = async (a: Awaited<ReturnType<typeof app>>) => {
    const c = process.cpuUsage();
    for (let i = 0; i < per; i++) await a.inject({ method: 'GET', url: `/v1/x/${i}` });
    const d = process.cpuUsage(c);
    return (d.user + d.system) / per;
  };
  await time(plain);
  await time(hooked);
  const plainUs: number[] = [];
  const hookedUs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    plainUs.push(await time(plain));
    hookedUs.push(await time(hooked));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  await plain.close();
  await hooked.close();
  // one scrape of every series made above
  const s0 = performance.now();
  const text = await metrics.text();
  const scrapeMs = performance.now() - s0;
  return {
    bench: 'metrics: prom-client per request (service/metrics.ts)',
    observe_cpu_ns: Math.round(observeCpuNs),
    request_plain_cpu_us: Number(median(plainUs).toFixed(1)),
    request_with_metrics_cpu_us: Number(median(hookedUs).toFixed(1)),
    request_overhead_cpu_us: Number((median(hookedUs) - median(plainUs)).toFixed(1)),
    series: text.split('\n').filter((l) => l && !l.startsWith('#')).length,
    scrape_ms: Number(scrapeMs.toFixed(1)),
    scrape_kib: Math.round(Buffer.byteLength(text) / 1024),
  };
}
