import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Periodic } from './periodic.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Periodic', () => {
  it('runs rounds one after another, never overlapping; a failing round does not stop the next; stop waits for the running one', async () => {
    let active = 0;
    let most = 0;
    let rounds = 0;
    const errors: string[] = [];
    const p = new Periodic(
      async () => {
        active++;
        most = Math.max(most, active);
        rounds++;
        await sleep(30); // longer than the interval: rounds would overlap if the timer did not wait
        active--;
        if (rounds === 2) throw new Error('round 2 failed');
      },
      5,
      (err) => errors.push(err.message),
    );
    p.start();
    p.start();
    await sleep(200);
    await p.stop();
    assert.equal(active, 0, 'stop waited for the round in progress');
    assert.equal(most, 1);
    assert.ok(rounds >= 3, `rounds went on after the failure: ${rounds}`);
    assert.deepEqual(errors, ['round 2 failed']);
    const after = rounds;
    await sleep(60);
    assert.equal(rounds, after, 'no round after stop');
  });

  it('a stop and a start during a round leave one timer', async () => {
    let rounds = 0;
    let release!: () => void;
    const p = new Periodic(
      async () => {
        rounds++;
        if (rounds === 1) await new Promise<void>((r) => (release = r));
      },
      5,
      () => undefined,
    );
    p.start();
    await sleep(20);
    const stopped = p.stop();
    p.start();
    release();
    await stopped;
    await sleep(100);
    await p.stop();
    // One timer: about 100 / (5 + scheduling) rounds; two timers would double that and overlap.
    const rate = rounds;
    assert.ok(rate > 2, `rounds went on: ${rate}`);
    rounds = 0;
    await sleep(50);
    assert.equal(rounds, 0);
  });
});
