import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import examples from '@octokit/webhooks-examples' with { type: 'json' };
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../src/tokens.js';

const text = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

const samples: Record<string, string> = {
  'webhook payloads (JSON)': JSON.stringify(examples).slice(0, 200_000),
  'English (README)': text('../README.md'),
  'TypeScript': text('../src/tool.ts'),
  'a tool schema': text('../schemas/outlook_create_event.json'),
  'base64': randomBytes(60_000).toString('base64'),
  'hex shas': randomBytes(30_000).toString('hex'),
  'Graph-like ids': JSON.stringify(Array.from({ length: 200 }, () => ({ id: `AAMkAGI2${randomBytes(60).toString('base64')}` }))),
  'Japanese': '日本語のテキストです。東京は大きな都市です。'.repeat(500),
  'accented Latin': 'Ça va très bien, merci beaucoup. Élève, façade, naïve. Größe Straße Übung. '.repeat(300),
  'Cyrillic': 'Привет, мир! Как дела? Всё хорошо, спасибо. '.repeat(300),
};

describe('estimateTokens', () => {
  it.each(Object.entries(samples))('never counts fewer tokens than o200k_base, nor more than 1.6 times as many: %s', (_name, sample) => {
    const json = JSON.stringify(sample);
    const real = countTokens(json);
    const estimate = estimateTokens(json);
    expect(estimate).toBeGreaterThanOrEqual(real);
    expect(estimate).toBeLessThanOrEqual(real * 1.6);
  });
});
