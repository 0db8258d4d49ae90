import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../../helpers/cli.js'

/**
 * The docs hold together: every relative link and #anchor in README.md, CONTRIBUTING.md and
 * docs/**\/*.md leads somewhere (a file or folder that exists; a heading of that file, by
 * GitHub's slug rules), and the README stays short with its two commands near the top. The code
 * cites docs by their path in the repository: each such path names a file that is there, and
 * none leads out of it (the spec and the design are docs/spec/ and docs/design.md).
 */

/** The Markdown files whose links are checked, relative to the repository, sorted. */
function docFiles(root = ROOT): string[] {
  const files = ['README.md', 'CONTRIBUTING.md']
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(relative)
      else if (entry.name.endsWith('.md')) files.push(relative)
    }
  }
  walk('docs')
  return files.sort()
}

/** The lines of a Markdown file outside fenced code blocks (``` or ~~~), with their numbers. */
function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = []
  let fence: string | undefined
  text.split('\n').forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && marker) fence = marker[0].repeat(marker.length)
    else if (fence !== undefined && marker?.startsWith(fence)) fence = undefined
    else if (fence === undefined) lines.push({ line, number: index + 1 })
  })
  return lines
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation out, spaces to `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link reads as its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
    .toLowerCase()
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** Every anchor a file's headings make (ATX and setext), a repeated one suffixed -1, -2 as GitHub does. */
function anchors(text: string): Set<string> {
  const found = new Set<string>()
  const seen = new Map<string, number>()
  const add = (heading: string) => {
    const base = slug(heading)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  const lines = proseLines(text)
  lines.forEach(({ line, number }, index) => {
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)
    if (atx) {
      add(atx[1])
      return
    }
    const next = lines[index + 1]
    if (
      next?.number === number + 1 &&
      /^ {0,3}(=+|-+)\s*$/.test(next.line) &&
      line.trim() !== '' &&
      !/^ {0,3}([-*+]\s|\d+\.\s|>|\|)/.test(line)
    )
      add(line)
  })
  return found
}

/** The link targets of a file, outside code blocks and code spans: `[text](target)` and images. */
function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = []
  for (const { line, number } of proseLines(text)) {
    const prose = line.replace(/(`+)[\s\S]*?\1/g, (span) => (span.includes('](') ? '' : span))
    for (const match of prose.matchAll(/!?\[(?:[^\]`]|`[^`]*`)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: match[1], line: number })
    }
  }
  return found
}

/** What is wrong with each relative link of `file` (relative to root): `file:line target: why`. */
function brokenLinks(file: string, root = ROOT): string[] {
  const problems: string[] = []
  const text = fs.readFileSync(path.join(root, file), 'utf8')
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:: not ours to check
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined]
    const resolved =
      pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart))
    const where = `${file}:${line} ${target}`
    if (resolved.startsWith('../') || path.posix.isAbsolute(resolved)) {
      problems.push(`${where}: points outside the repository`)
      continue
    }
    const absolute = path.join(root, resolved)
    if (!fs.existsSync(absolute)) {
      problems.push(`${where}: ${resolved} does not exist`)
      continue
    }
    if (anchor === undefined) continue
    if (!resolved.endsWith('.md')) {
      problems.push(`${where}: an anchor into a file that is not Markdown`)
      continue
    }
    const targetText = resolved === file ? text : fs.readFileSync(absolute, 'utf8')
    if (!anchors(targetText).has(decodeURIComponent(anchor))) {
      problems.push(`${where}: no heading of ${resolved} has the anchor #${anchor}`)
    }
  }
  return problems
}

/** A Markdown path cited in code: `docs/….md`, `test/….md`, README.md, CONTRIBUTING.md or `../….md`. */
const CITED_DOC =
  /(?<![\w./-])((?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*\.md|(?:docs|test)\/[\w./-]+\.md|README\.md|CONTRIBUTING\.md)/g

/** Each Markdown path cited in the code under `dirs` that is not a file of the repository. */
function brokenCitations(dirs: string[], root = ROOT, skip = new Set<string>()): string[] {
  const problems: string[] = []
  const scan = (file: string) => {
    fs.readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const [, cited] of line.matchAll(CITED_DOC)) {
          if (cited.startsWith('../')) problems.push(`${file}:${index + 1} ${cited}: outside the repository`)
          else if (!fs.existsSync(path.join(root, cited)))
            problems.push(`${file}:${index + 1} ${cited}: no such file`)
        }
      })
  }
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(relative)
      else if ((dir === '.ci' || /\.(ts|mts|js|mjs|cjs)$/.test(entry.name)) && !skip.has(relative))
        scan(relative)
    }
  }
  for (const dir of dirs) walk(dir)
  return problems
}

describe('the docs', () => {
  const files = docFiles()

  test('are README.md, CONTRIBUTING.md and the guides, spec, design and command pages under docs/', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/design.md']))
    expect(files).toContain('docs/spec/payment-service-api.md')
    expect(files).toContain('docs/commands/links.md')
  })

  test.each(files)('%s: every relative link and #anchor resolves', (file) => {
    expect(brokenLinks(file)).toEqual([])
  })

  test('cited in the code (src/, test/, scripts/, .ci/) by paths that are files of the repository', () => {
    const self = path.relative(ROOT, import.meta.filename)
    expect(brokenCitations(['src', 'test', 'scripts', '.ci'], ROOT, new Set([self]))).toEqual([])
  })

  test('README.md is at most 400 lines, and its first 40 hold the command that installs and runs the main job, and the one that runs every test', () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n')
    expect(lines.length).toBeLessThanOrEqual(400)
    const top = lines.slice(0, 40)
    expect(top).toContainEqual(
      expect.stringMatching(
        /^npm ci && \.\/bin\/run\.js -p sandbox links create .+ && \.\/bin\/run\.js -p sandbox links list$/,
      ),
    )
    expect(top).toContain('npm test')
  })
})

describe('the link checker', () => {
  test('slugs headings as GitHub does', () => {
    expect(slug('`pay links delete [ID]`')).toBe('pay-links-delete-id')
    expect(slug("The customer's pages")).toBe('the-customers-pages')
    expect(slug('jq, JSON lines and pay api')).toBe('jq-json-lines-and-pay-api')
    expect(slug('4.9 Update Subscription')).toBe('49-update-subscription')
    expect(slug('Layout (top level: package.json, src)')).toBe('layout-top-level-packagejson-src')
    expect(slug('`_id` and `--jq`: a [link](x.md)')).toBe('_id-and---jq-a-link')
  })

  test('finds ATX and setext headings, numbers repeats, and skips code blocks', () => {
    const text = [
      '# Title',
      '`pay links`',
      '===========',
      '## Again',
      '## Again',
      '```sh',
      '# not a heading',
      '```',
      '- a list item',
      '---',
    ].join('\n')
    expect([...anchors(text)]).toEqual(['title', 'pay-links', 'again', 'again-1'])
  })

  test('reports a missing file, a missing anchor and a link out of the repository, and passes good ones', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'pay-doc-links-'))
    fs.mkdirSync(path.join(root, 'docs'))
    fs.writeFileSync(path.join(root, 'docs/a.md'), '# A\n\n## Part one\n')
    fs.writeFileSync(
      path.join(root, 'README.md'),
      [
        '# Readme',
        '[ok](docs/a.md) [ok](docs/a.md#part-one) [ok](#readme) [web](https://example.com/x.md)',
        '[gone](docs/b.md) [bad anchor](docs/a.md#part-two)',
        '[out](../elsewhere.md) `[in code](docs/none.md)`',
        '```',
        '[in a block](docs/none.md)',
        '```',
      ].join('\n'),
    )
    try {
      expect(brokenLinks('README.md', root)).toEqual([
        'README.md:3 docs/b.md: docs/b.md does not exist',
        'README.md:3 docs/a.md#part-two: no heading of docs/a.md has the anchor #part-two',
        'README.md:4 ../elsewhere.md: points outside the repository',
      ])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  test('reports a cited doc that is missing or outside the repository, and passes one that is there', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-cited-'))
    fs.mkdirSync(path.join(root, 'src'))
    fs.mkdirSync(path.join(root, 'docs'))
    fs.writeFileSync(path.join(root, 'docs/choices.md'), '# Choices\n')
    fs.writeFileSync(
      path.join(root, 'src/a.ts'),
      '/** As docs/choices.md says; see ../shared/DESIGN.md */\n// (docs/gone.md)\nconst x = 1\n',
    )
    expect(brokenCitations(['src'], root)).toEqual([
      'src/a.ts:1 ../shared/DESIGN.md: outside the repository',
      'src/a.ts:2 docs/gone.md: no such file',
    ])
    fs.rmSync(root, { recursive: true })
  })
})
