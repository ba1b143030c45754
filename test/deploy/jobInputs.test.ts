import { describe, expect, it } from 'vitest';
import { inputKeys, jobInputConfigMap } from '../../src/deploy/jobInputs.js';

describe('a Job\u2019s input files', () => {
  it('keys each file by its base name, as a ConfigMap key may be spelt, one key per file', () => {
    expect(inputKeys(['a/net.yaml', 'b/net.yaml', 'c/net.yaml', 'x y.json', 'README'])).toEqual([
      'net.yaml',
      'net-2.yaml',
      'net-3.yaml',
      'x-y.json',
      'README',
    ]);
    for (const key of inputKeys(['/tmp/ä ö/ü.yaml', 'C:\\\\nets\\\\hotel.yaml'])) {
      expect(key).toMatch(/^[-._a-zA-Z0-9]+$/);
    }
  });

  it('holds their texts under their keys', () => {
    const map = jobInputConfigMap('job-input', 'batch', [
      { key: 'net.yaml', text: 'classes: []\n' },
    ]);
    expect(map).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'job-input', namespace: 'batch' },
      data: { 'net.yaml': 'classes: []\n' },
    });
  });
});
