// The scenario builder's time limit: a build shaped to run for minutes is refused and stopped, and leaves nothing.
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ScenarioBuilder } from '../../src/scenarios/builder.js';
import { ScenarioError } from '../../src/scenarios/errors.js';
import { until } from '../helpers/wait.js';
import { longBuildBody } from './helpers.js';

/** Small DKAN datasets. */
const manyDatasets = (n: number) =>
  JSON.stringify({
    dkan: {
      datasets: Array.from({ length: n }, (_, i) => ({
        id: `d${i}`,
        resources: [{ columns: ['a', 'b'], rows: [[1, 2]] }],
      })),
    },
  });

/** The folders of builds of scenario `name` (see scenarioDirPrefix). */
const foldersOf = (name: string) =>
  readdirSync(os.tmpdir()).filter((f) => f.startsWith(`mockyard-scenario-${name}-`) && f.length === name.length + 25);

/** This process's scenario body files (see bodyFilePath). */
const isOwnBody = (f: string) => f.startsWith(`mockyard-scenario-body-${process.pid}-`);

/**
 * A build's clock that the test runs out itself, once the build is under way: no race with the machine's speed.
 * `started` resolves when the builder starts the clock, as it hands the build (its body file written) over.
 */
function manualLimit() {
  let overrun: (() => void) | undefined;
  let started!: () => void;
  const handedOver = new Promise<void>((resolve) => (started = resolve));
  return {
    start: (fire: () => void) => {
      overrun = fire;
      started();
      return undefined;
    },
    started: handedOver,
    reach: () => overrun!(),
  };
}

/**
 * Resolves once the builder has read this process's body file: the build is running. Only after the file was
 * written (the build handed over, or its folder made): before that, no file also means nothing to wait for.
 */
const building = () => until(() => !readdirSync(os.tmpdir()).some(isOwnBody));

describe('ScenarioBuilder', () => {
  it('refuses a build past its limit with a 413, and builds again afterwards in a fresh process', async () => {
    // The limit (1 ms, as the message says) is reached while the build of seconds runs.
    const limit = manualLimit();
    const strict = new ScenarioBuilder(1, limit.start);
    try {
      const refused = strict.build('many', longBuildBody()).catch((e: unknown) => e);
      await limit.started;
      await building();
      limit.reach();
      const err = await refused;
      expect(err).toBeInstanceOf(ScenarioError);
      expect(err).toMatchObject({ statusCode: 413, pointer: null });
      expect((err as Error).message).toMatch(/took longer than 0.001 s and was stopped/);
    } finally {
      strict.close();
    }
    const builder = new ScenarioBuilder();
    try {
      const built = await builder.build('few', manyDatasets(2));
      expect(built.counts.dkan).toMatchObject({ datasets: 2 });
      await rm(built.dir, { recursive: true, force: true });
    } finally {
      builder.close();
    }
  });

  it('removes the folder of a build it stopped past the limit, once its process has gone', async () => {
    const name = `overrun-${process.pid}`;
    // The limit is reached in the middle of a build of seconds.
    const limit = manualLimit();
    const builder = new ScenarioBuilder(1500, limit.start);
    try {
      const refused = builder.build(name, longBuildBody()).catch((e: unknown) => e);
      await until(() => foldersOf(name).length > 0);
      await limit.started;
      await building();
      limit.reach();
      expect(await refused).toMatchObject({ statusCode: 413 });
      await until(() => foldersOf(name).length === 0);
    } finally {
      builder.close();
    }
  });

  it('removes the folder of a build in progress when it closes', async () => {
    const name = `closed-${process.pid}`;
    const builder = new ScenarioBuilder();
    const stopped = builder.build(name, longBuildBody()).catch((e: unknown) => e);
    await until(() => foldersOf(name).length > 0);
    await building();
    builder.close();
    expect(foldersOf(name)).toEqual([]);
    expect(await stopped).toMatchObject({ message: 'the scenario builder stopped' });
  });
});
