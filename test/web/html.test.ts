import { describe, expect, it } from 'vitest';
import { html, raw } from '../../src/web/html.js';
import { parseCookies } from '../../src/web/session.js';

describe('html', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const label = `<script>alert('x')</script>" onmouseover="x` + '`';
    const out = html`<td title="${label}">${label}</td>`.value;
    expect(out).toBe(
      '<td title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onmouseover=&quot;x&#96;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onmouseover=&quot;x&#96;</td>',
    );
  });

  it('nests html results and arrays without escaping them twice, and renders nothing for undefined, null and false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${undefined}${null}${false}${0}`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>0');
    expect(html`${raw('<b>trusted</b>')}`.value).toBe('<b>trusted</b>');
  });
});

describe('parseCookies', () => {
  it('reads name=value pairs, keeps the first of a repeated name, and ignores junk and __proto__ tricks', () => {
    const cookies = parseCookies('a=1; b=2; a=3; junk; __proto__=x');
    expect(cookies.a).toBe('1');
    expect(cookies.b).toBe('2');
    expect(Object.keys(cookies)).toEqual(['a', 'b', '__proto__']);
    expect(parseCookies(undefined)).toEqual({});
  });
});
