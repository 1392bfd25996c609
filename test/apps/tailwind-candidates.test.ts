import {describe, expect, it} from 'vitest'
import {tailwindCandidates} from '../../src/engines/css/tailwind-candidates.js'
import {tailwind} from '../../src/engines/css/tailwind.js'

describe('tailwindCandidates (css engine tailwind, pure)', () => {
  const has = (source: string, ...classes: string[]) => {
    const found = tailwindCandidates(source)
    for (const c of classes) expect(found, `${c} in ${source}`).toContain(c)
  }

  it('finds classes in markup attributes of every engine', () => {
    has('<div class="p-4 text-red-500">x</div>', 'p-4', 'text-red-500')
    has(`<button className="underline hover:bg-blue-600/50" onClick={f}>`, 'underline', 'hover:bg-blue-600/50')
    has(`<p className={'mt-2 ' + (on ? 'font-bold' : 'italic')}>`, 'mt-2', 'font-bold', 'italic')
    has('<div class:bg-red-500={on} :class="{\'ring-2\': on}">', 'bg-red-500', 'ring-2')
    has('<li v-bind:class="md:flex">', 'md:flex')
  })

  it('keeps JS arrays and objects apart but arbitrary values whole', () => {
    has(`const cls = ['p-4','m-2'].join(' ')`, 'p-4', 'm-2')
    has(`clsx({'px-3': a, "py-1": b})`, 'px-3', 'py-1')
    has(`<div class="bg-[url('/a.png')] grid-cols-[repeat(2,1fr)] [mask-type:luminance] w-[calc(100%-1rem)]">`,
      "bg-[url('/a.png')]", 'grid-cols-[repeat(2,1fr)]', '[mask-type:luminance]', 'w-[calc(100%-1rem)]')
    has('`text-${size} sm:p-2!`', 'sm:p-2!')
    has('Use the p-4. Then m-1)', 'p-4', 'm-1')
  })

  it('answers each candidate once and nothing for blank input', () => {
    const found = tailwindCandidates('p-4 p-4\np-4')
    expect(found.filter((c) => c === 'p-4')).toHaveLength(1)
    expect(tailwindCandidates('  \n\t')).toEqual([])
  })
})

describe('tailwindCompile (server Tailwind 4 over the candidates)', {timeout: 60_000}, () => {
  it('emits the used classes only', async () => {
    const css = await tailwind.compile!(`<main class="p-4 bg-[#123456] md:flex"><b :class="{'text-red-500': on}">x</b></main>`)
    expect(css).toMatch(/\.p-4\s*\{/)
    expect(css).toContain('#123456')
    expect(css).toMatch(/\.md\\:flex/)
    expect(css).toMatch(/\.text-red-500\s*\{/)
    expect(css).not.toMatch(/\.p-5\s*\{/)
    expect(css).not.toMatch(/\.m-4\s*\{/)
    expect(css).not.toMatch(/\.bg-green-500\s*\{/)
  })
})
