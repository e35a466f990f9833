// The container recipe of docs/deploy.md, checked without a container engine: the Dockerfile's steps
// name files of the project and run the server the docs name; compose.yaml's services, environment,
// health checks and order are the page's; the .env the page writes holds every variable it needs.

import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { projectPath } from '../../../src/paths.js';

type Node = string | Node[] | { [key: string]: Node };
type YamlMap = { [key: string]: Node };

/** A YAML scalar's text: single quotes double a quote, double quotes are JSON's. */
function unquote(t: string): string {
  if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  if (t.startsWith('"')) return JSON.parse(t) as string;
  return t;
}

/**
 * Reads the YAML subset compose.yaml is written in: block mappings and lists, quoted and flow-list
 * scalars, anchors, aliases and `<<` merges (later keys win). Anything else fails the test.
 */
function readYaml(text: string): YamlMap {
  const lines = text
    .split('\n')
    .map((raw) => ({ indent: raw.search(/\S/), text: raw.trim() }))
    .filter((l) => l.indent >= 0 && !l.text.startsWith('#'));
  const anchors = new Map<string, Node>();
  let i = 0;
  const scalar = (t: string): Node => {
    if (t.startsWith('*')) {
      const value = anchors.get(t.slice(1));
      if (value === undefined) throw new Error(`compose.yaml: unknown alias ${t}`);
      return value;
    }
    if (t.startsWith('[')) {
      if (!t.endsWith(']')) throw new Error(`compose.yaml: a flow list on one line only: ${t}`);
      return [...t.slice(1, -1).matchAll(/'(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^,\s][^,]*/g)].map((m) => unquote(m[0].trim()));
    }
    return unquote(t);
  };
  const block = (indent: number): Node => {
    if (lines[i].text.startsWith('- ')) {
      const list: Node[] = [];
      while (i < lines.length && lines[i].indent === indent && lines[i].text.startsWith('- ')) list.push(scalar(lines[i++].text.slice(2)));
      return list;
    }
    const map: YamlMap = {};
    while (i < lines.length && lines[i].indent === indent) {
      const m = /^([^:\s]+):(?:\s+(.*))?$/.exec(lines[i].text);
      if (!m) throw new Error(`compose.yaml: cannot read "${lines[i].text}"`);
      i++;
      let rest = m[2] ?? '';
      const anchor = /^&(\S+)\s*(.*)$/.exec(rest);
      if (anchor) rest = anchor[2];
      const value = rest === '' ? (i < lines.length && lines[i].indent > indent ? block(lines[i].indent) : '') : scalar(rest);
      if (anchor) anchors.set(anchor[1], value);
      if (m[1] === '<<') Object.assign(map, value as YamlMap);
      else map[m[1]] = value;
    }
    return map;
  };
  const root = block(0) as YamlMap;
  if (i !== lines.length) throw new Error(`compose.yaml: cannot read "${lines[i].text}"`);
  return root;
}

/** Every TypeScript source of the service, to find the variables it reads. */
function sources(dir: string): string {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? fs.readFileSync(path.join(dir, e.name), 'utf8') : ''))
    .join('\n');
}

const SERVER = ['node', 'dist/surfaces/cli/svc-server.js'];

describe('container recipe (Dockerfile, compose.yaml, docs/deploy.md)', () => {
  const dockerfile = fs.readFileSync(projectPath('Dockerfile'), 'utf8');
  const instructions = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .map((l) => {
      const [word, ...rest] = l.trim().split(/\s+/);
      return { word: word.toUpperCase(), args: rest.join(' ') };
    });
  const compose = readYaml(fs.readFileSync(projectPath('compose.yaml'), 'utf8'));
  const services = compose.services as { [name: string]: YamlMap };
  const deploy = fs.readFileSync(projectPath('docs/deploy.md'), 'utf8');
  const pkg = JSON.parse(fs.readFileSync(projectPath('package.json'), 'utf8')) as {
    engines: { node: string };
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
  };

  it('the Dockerfile builds from files of the project with the locked dependencies and a Node.js the project supports', () => {
    for (const from of instructions.filter((x) => x.word === 'FROM')) {
      const major = /^node:(\d+)/.exec(from.args)?.[1];
      expect(major, `FROM ${from.args}`).to.be.a('string');
      expect(pkg.engines.node, `FROM ${from.args}`).to.match(new RegExp(`\\^${major}\\.`));
    }
    const copies = instructions.filter((x) => x.word === 'COPY' && !x.args.includes('--from='));
    expect(copies).to.have.length.greaterThan(0);
    for (const copy of copies) {
      const words = copy.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      for (const source of words.slice(0, -1)) expect(fs.existsSync(projectPath(source)), `COPY ${copy.args}: ${source} exists`).to.equal(true);
    }
    const runs = instructions.filter((x) => x.word === 'RUN').map((x) => x.args);
    expect(runs.join('\n')).to.match(/\bnpm ci\b/);
    expect(runs.join('\n')).to.match(/\bnpm run build\b/);
    expect(pkg.scripts.build).to.be.a('string');
    for (const rebuilt of runs.join(' ').match(/npm rebuild ([\w@/-]+)/g) ?? [])
      expect(pkg.dependencies, rebuilt).to.have.property(rebuilt.replace('npm rebuild ', ''));
    const ignored = fs.readFileSync(projectPath('.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'svc.env', 'node_modules', 'dist', 'data', '.git']) expect(ignored, `.dockerignore leaves out ${entry}`).to.include(entry);
  });

  it('the image runs `node dist/surfaces/cli/svc-server.js serve` as an unprivileged user, with a liveness check on /healthz', () => {
    const cmd = instructions.filter((x) => x.word === 'CMD').at(-1)!;
    expect(JSON.parse(cmd.args)).to.deep.equal([...SERVER, 'serve']);
    expect(fs.existsSync(projectPath('surfaces/cli/svc-server.ts')), 'the CMD is the build of surfaces/cli/svc-server.ts').to.equal(true);
    const user = instructions.filter((x) => x.word === 'USER').at(-1);
    expect(user?.args).to.be.a('string').and.not.equal('root');
    expect(instructions.find((x) => x.word === 'EXPOSE')?.args).to.equal('8080');
    expect(instructions.find((x) => x.word === 'HEALTHCHECK')?.args).to.include('/healthz');
    const env = instructions.find((x) => x.word === 'ENV')!.args;
    expect(env).to.include('HOST=0.0.0.0').and.include('PORT=8080');
  });

  it('compose.yaml runs MariaDB, Redis, a one-shot migrate, the API process and two workers, each with its health check and in order', () => {
    expect(Object.keys(services).sort()).to.deep.equal(['api', 'mariadb', 'migrate', 'redis', 'worker']);
    expect(services.mariadb.image).to.match(/^mariadb:10\.11/);
    expect((services.mariadb.healthcheck as YamlMap).test).to.deep.equal(['CMD', 'healthcheck.sh', '--connect', '--innodb_initialized']);
    expect((services.redis.healthcheck as YamlMap).test).to.deep.equal(['CMD', 'redis-cli', 'ping']);
    expect(services.migrate.command).to.deep.equal([...SERVER, 'migrate']);
    expect(services.migrate.depends_on).to.deep.equal({ mariadb: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker', 'migrate']) expect(services[name].build, `${name} is built from the project's Dockerfile`).to.equal('.');
    for (const name of ['api', 'worker']) {
      const s = services[name];
      expect(s.command, `${name} runs the image's CMD (serve)`).to.equal(undefined);
      expect((s.healthcheck as YamlMap).test, `${name} is healthy once /readyz answers 200`)
        .to.be.an('array')
        .that.satisfies((t: string[]) => t.join(' ').includes('/readyz'));
      expect((s.depends_on as YamlMap).migrate, `${name} starts after the migrations`).to.deep.equal({ condition: 'service_completed_successfully' });
      expect(s.volumes, `${name} shares the creatives`).to.deep.equal([`creatives:${(s.environment as YamlMap).CREATIVES_DIR}`]);
    }
    expect((services.api.environment as YamlMap).JOBS).to.equal('off');
    expect((services.worker.environment as YamlMap).JOBS).to.equal('on');
    expect((services.worker.deploy as YamlMap).replicas).to.equal('2');
    expect(services.api.ports).to.deep.equal(['8080:8080']);
    expect(Object.keys(compose.volumes as YamlMap).sort()).to.deep.equal(['creatives', 'mariadb']);
  });

  it("compose.yaml's processes get the production environment, every variable one the service reads, the database the MariaDB service creates", () => {
    const code = sources(projectPath('src')) + sources(projectPath('surfaces'));
    for (const name of ['api', 'worker', 'migrate']) {
      const env = services[name].environment as YamlMap;
      expect(env.PLATFORM_MODE, name).to.equal('live');
      for (const v of ['TOKEN_ENCRYPTION_KEY', 'METRICS_TOKEN', 'BASE_URL', 'DATABASE_URL', 'REDIS_URL', 'HOST', 'PORT']) expect(env, name).to.have.property(v);
      for (const v of Object.keys(env)) expect(code, `${name}: ${v} is read by the service`).to.match(new RegExp(`\\b${v}\\b`));
      const db = new URL((env.DATABASE_URL as string).replace(/\$\{DB_PASSWORD[^}]*\}/, 'pw'));
      const mariadb = services.mariadb.environment as YamlMap;
      expect([db.protocol, db.hostname, db.username, db.pathname]).to.deep.equal(['mysql:', 'mariadb', mariadb.MARIADB_USER, `/${mariadb.MARIADB_DATABASE}`]);
      expect(env.DATABASE_URL).to.include('${DB_PASSWORD');
      expect(mariadb.MARIADB_PASSWORD).to.match(/^\$\{DB_PASSWORD\b/);
      expect(new URL(env.REDIS_URL as string).hostname).to.equal('redis');
    }
  });

  it("the .env docs/deploy.md writes sets every variable compose.yaml needs, and its docker compose lines name compose's services", () => {
    const written = /cat > \.env <<EOF\n([\s\S]*?)\nEOF/.exec(deploy);
    expect(written, 'docs/deploy.md writes .env').to.not.equal(null);
    const set = written![1].split('\n').map((l) => l.slice(0, l.indexOf('=')));
    const needed = [...new Set([...fs.readFileSync(projectPath('compose.yaml'), 'utf8').matchAll(/\$\{(\w+)/g)].map((m) => m[1]))];
    expect(
      needed.filter((v) => !set.includes(v)),
      'variables compose.yaml reads that the .env does not set',
    ).to.deep.equal([]);
    const runs = [...deploy.matchAll(/docker compose run .*?(\w+) node /g)].map((m) => m[1]);
    expect(runs).to.have.length.greaterThan(0);
    for (const s of runs) expect(services, `docker compose run ${s}`).to.have.property(s);
    expect(deploy).to.include('docker compose up -d --build');
  });
});
