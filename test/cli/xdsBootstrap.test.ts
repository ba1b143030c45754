import { describe, expect, it } from 'vitest';
import { xdsBootstrapCommand } from '../../src/cli/xdsCommand.js';
import { xdsBootstrap } from '../../src/xds/xdsBootstrap.js';
import { runCli } from './runCli.js';

// `difftry xds bootstrap`, the CLI in process: the GRPC_XDS_BOOTSTRAP JSON it prints and the
// flags it refuses.

describe('difftry xds bootstrap (in process)', () => {
  it('prints the GRPC_XDS_BOOTSTRAP JSON of xdsBootstrap', async () => {
    const { code, stdout, stderr } = await runCli(
      'xds',
      'bootstrap',
      '--server',
      '127.0.0.1:18000',
      '--node',
      'frontend-1',
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual(
      xdsBootstrap({ server: '127.0.0.1:18000', node: 'frontend-1' }),
    );
    expect(stdout.endsWith('}\n')).toBe(true);
    const plain = await runCli('xds', 'bootstrap', '--server', 'localhost:18000');
    expect(JSON.parse(plain.stdout).node.id).toBe('difftry-client');
    const v6 = await runCli('xds', 'bootstrap', '--server', '[::1]:18000');
    expect(JSON.parse(v6.stdout).xds_servers[0].server_uri).toBe('[::1]:18000');
  });

  it('refuses a bad --server or --node: exit 2, one line, nothing on stdout', async () => {
    for (const [args, message] of [
      [['--server', 'nope'], '--server: expected HOST:PORT, got "nope"'],
      [['--server', '127.0.0.1:0'], '--server: expected a port from 1 to 65535, got "127.0.0.1:0"'],
      [['--server', '127.0.0.1:70000'], 'got "127.0.0.1:70000"'],
      [['--server', '[nope]:1'], '--server: expected HOST:PORT, got "[nope]:1"'],
      [['--server', 'a b:1'], 'got "a b:1"'],
      [['--server', '127.0.0.1:1', '--node', ' '], '--node: expected a node id'],
      [[], "required option '--server <host:port>' not specified"],
    ] as const) {
      const { code, stdout, stderr } = await runCli('xds', 'bootstrap', ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() => xdsBootstrapCommand({ server: 'x' })).toThrow(/--server/);
  });
});
