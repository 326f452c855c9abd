import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeDoc } from '../state.js';
import { meetsConstraint, resolveTarget, versionMatches } from './constraints.js';
import { binPackScore } from './resources.js';

const node = {
  ID: '3f2a0000-0000-4000-8000-000000000001',
  Name: 'web-1',
  Datacenter: 'dc1',
  NodeClass: 'large',
  NodePool: 'default',
  Attributes: { 'kernel.name': 'linux', 'cpu.numcores': '8', 'os.version': '24.04', 'driver.raw_exec': '1' },
  Meta: { rack: 'r2', tags: 'ssd, gpu,fast' },
} as unknown as NodeDoc;

const holds = (LTarget: string, Operand: string, RTarget = '') => meetsConstraint({ LTarget, RTarget, Operand }, node);

describe('scheduler constraints', () => {
  it("resolves the reference's targets, and literals", () => {
    assert.equal(resolveTarget('${attr.kernel.name}', node), 'linux');
    assert.equal(resolveTarget('${node.unique.name}', node), 'web-1');
    assert.equal(resolveTarget('${node.unique.id}', node), node.ID);
    assert.equal(resolveTarget('${node.datacenter}', node), 'dc1');
    assert.equal(resolveTarget('${node.class}', node), 'large');
    assert.equal(resolveTarget('${meta.rack}', node), 'r2');
    assert.equal(resolveTarget('${meta.missing}', node), undefined);
    assert.equal(resolveTarget('${attr.__proto__}', node), undefined);
    assert.equal(resolveTarget('linux', node), 'linux');
  });

  it('checks equality, order (numbers as numbers), regexp and sets', () => {
    assert.ok(holds('${attr.kernel.name}', '=', 'linux'));
    assert.ok(holds('${attr.kernel.name}', '==', 'linux'));
    assert.ok(!holds('${attr.kernel.name}', '!=', 'linux'));
    assert.ok(holds('${attr.cpu.numcores}', '>=', '8'));
    assert.ok(holds('${attr.cpu.numcores}', '>', '10') === false, '8 > 10 is false as numbers (true as strings)');
    assert.ok(holds('${attr.cpu.numcores}', '<', '10'));
    assert.ok(holds('${node.unique.name}', 'regexp', '^web-[0-9]+$'));
    assert.ok(!holds('${node.unique.name}', 'regexp', '(unclosed'));
    assert.ok(holds('${meta.tags}', 'set_contains', 'gpu,ssd'));
    assert.ok(!holds('${meta.tags}', 'set_contains', 'gpu,nvme'));
    assert.ok(holds('${meta.tags}', 'set_contains_any', 'nvme,fast'));
    assert.ok(holds('${meta.rack}', 'is_set'));
    assert.ok(holds('${meta.zone}', 'is_not_set'));
    assert.ok(!holds('${meta.zone}', '=', 'a'), 'a missing target matches no value');
    assert.ok(!holds('${meta.rack}', 'no_such_operand', 'r2'));
  });

  it('checks version constraints as hashicorp/go-version', () => {
    assert.ok(versionMatches('24.04', '>= 22.4, < 25'));
    assert.ok(!versionMatches('24.04', '>= 24.5'));
    assert.ok(versionMatches('1.2.7', '~> 1.2.3'));
    assert.ok(!versionMatches('1.3.0', '~> 1.2.3'));
    assert.ok(versionMatches('1.9.0', '~> 1.2'));
    assert.ok(!versionMatches('2.0.0', '~> 1.2'));
    assert.ok(!versionMatches('1.0.0-beta', '>= 1.0.0'), 'a pre-release sorts before its release');
    assert.ok(versionMatches('v1.0.0', '= 1.0'));
    assert.ok(!versionMatches('not-a-version', '>= 1'));
    assert.ok(holds('${attr.os.version}', 'version', '>= 20.04'));
  });

  it("scores fuller nodes higher (the reference's bin-packing formula, normalised)", () => {
    const cap = { cpu: 1000, memory: 1000 };
    assert.equal(binPackScore(cap, cap), 1);
    assert.equal(binPackScore({ cpu: 0, memory: 0 }, cap), 0);
    assert.ok(binPackScore({ cpu: 800, memory: 800 }, cap) > binPackScore({ cpu: 200, memory: 200 }, cap));
    assert.ok(Math.abs(binPackScore({ cpu: 500, memory: 500 }, cap) - (20 - 2 * 10 ** 0.5) / 18) < 1e-12);
  });
});
