import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ENDPOINT_LIST, ENDPOINT_NAMES } from '../../../src/shared/endpoints.js'
import { ROOT } from '../../helpers/cli.js'

/**
 * Each endpoint is declared once, in the endpoint table (src/shared/endpoints.ts), and everything
 * else derives from it:
 * - a path of the table (`/payment-links`, `/_sandbox/webhooks/deliveries/{id}/resend`, or the
 *   collection before an `{id}`: `/payment-links/`) is written in no string literal of src but the
 *   table's: neither whole (`'/payment-links'`), nor as the start of one
 *   (`'/payment-links/' + id`, `` `/payment-links/${id}` ``, `'POST /payment-links'`), nor after
 *   an interpolation or an origin (`` `${base}/payment-links` ``). A path in a sentence (a help
 *   text's example, `e.g. "POST /payment-links 503 x2"`) names it for a person and is no request;
 * - an endpoint's name (`createLink`) is written, as a string literal (`'createLink'`) or a
 *   property's key (`createLink:`, `ENDPOINTS.createLink`), only where an endpoint is called or
 *   served: the table, the commands (their `static calls`), their work, the sandbox (its route
 *   table and handlers) and `pay mcp`'s tools of the sandbox and of the account. A function of the same name (the sandbox's
 *   handler `createLink`, the work's) is an ordinary word of code, and comments are no code.
 */

/** Where an endpoint's name may be written. */
const NAMES_MAY_BE_IN = [
  /^src\/shared\/endpoints\.ts$/,
  /^src\/commands\//,
  /^src\/work\//,
  /^src\/sandbox\//,
  /^src\/agent\/sandbox-tools\.ts$/,
  /^src\/agent\/account\/tools\.ts$/,
]

const TABLE = 'src/shared/endpoints.ts'

interface SourceFile {
  /** From the repository's root, with `/`: `src/agent/runs.ts`. */
  file: string
  text: string
}

interface Offence {
  at: string
  what: string
}

const escaped = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&')

/** Each path of the table, and the collection before an `{id}` (`/payment-links/` of `/payment-links/{id}`). */
const PATHS = [
  ...new Set(
    ENDPOINT_LIST.map((endpoint) =>
      endpoint.path.includes('{id}') ? endpoint.path.slice(0, endpoint.path.indexOf('{id}')) : endpoint.path,
    ),
  ),
]

/** A text that begins with one of the paths, after a method, or an origin; a whole path ends there, or at `/`, `?`, `#`. */
const BEGINS_WITH_PATH = new RegExp(
  `^(?:(?:GET|POST|PUT|PATCH|DELETE|HEAD) )?(?:https?://[^/\\s]*)?(?:${PATHS.map((p) =>
    p.endsWith('/') ? escaped(p) : `${escaped(p)}(?=$|[/?#])`,
  ).join('|')})`,
)

const NAMES = new Set<string>(ENDPOINT_NAMES)

const isKey = (node: ts.Node): node is ts.Node & { name: ts.PropertyName } =>
  ts.isPropertyAssignment(node) ||
  ts.isShorthandPropertyAssignment(node) ||
  ts.isPropertySignature(node) ||
  ts.isPropertyDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isMethodSignature(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

/** Where the files say an endpoint's path, or name one where they should not. */
function offences(files: readonly SourceFile[]): Offence[] {
  const found: Offence[] = []
  for (const { file, text } of files) {
    // Parsed only when it holds the text of a path or a name somewhere (a comment may).
    if (!PATHS.some((p) => text.includes(p)) && !ENDPOINT_NAMES.some((name) => text.includes(name))) continue
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const pathsAllowed = file === TABLE
    const namesAllowed = NAMES_MAY_BE_IN.some((allowed) => allowed.test(file))
    const report = (node: ts.Node, what: string) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
      found.push({ at: `${file}:${line + 1}`, what })
    }
    const visit = (node: ts.Node): void => {
      // The texts of a literal: a string's, or each part of a template between its interpolations.
      const texts =
        ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
          ? [node.text]
          : ts.isTemplateExpression(node)
            ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)]
            : []
      if (!pathsAllowed) {
        for (const literal of texts)
          if (BEGINS_WITH_PATH.test(literal)) report(node, `the path in ${JSON.stringify(literal)}`)
      }
      if (!namesAllowed) {
        if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text))
          report(node, `the name '${node.text}'`)
        if (isKey(node) && ts.isIdentifier(node.name) && NAMES.has(node.name.text))
          report(node, `the name ${node.name.text}: as a key`)
        if (ts.isPropertyAccessExpression(node) && NAMES.has(node.name.text))
          report(node, `the name .${node.name.text}`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

function sourceFiles(dir: string): SourceFile[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|js|mjs)$/.test(name))
    .map((name) => {
      const file = `${dir}/${name.split(path.sep).join('/')}`
      return { file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }
    })
}

describe('each endpoint declared once', () => {
  it('src writes a path of the table only in the table, and an endpoint’s name only where it is called or served', () => {
    const files = sourceFiles('src')
    expect(files.length).toBeGreaterThan(200)
    expect(files.map((f) => f.file)).toContain(TABLE)
    expect(offences(files)).toEqual([])
  })

  it('finds each way a path or a name can be written where it should not, and none in comments', () => {
    const planted: SourceFile[] = [
      {
        file: 'src/agent/links.ts',
        text: [
          "// GET /payment-links/{id}: 'getLink'",
          "const one = (id: string) => '/payment-links/' + id",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source file, a template in it
          'const all = `${base}/payment-links?page=2`',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source file, a template in it
          'const resend = (id: string) => `/_sandbox/webhooks/deliveries/${id}/resend`',
          "const rule = 'DELETE /subscriptions'",
          'const prose = \'a fault rule, e.g. "POST /payment-links 503 x2"\'',
          "send('createLink', {})",
          'const calls = { updateSubscription: true }',
          'const endpoint = ENDPOINTS.sandboxPay',
          'function createLink() {}',
          'createLink()',
        ].join('\n'),
      },
      {
        file: 'src/sandbox/http/routes.ts',
        text: "route('GET', '/_sandbox/clock', showClock)\nserve('sandboxClock')",
      },
      {
        file: 'src/commands/links/get.ts',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source file, a template in it
        text: "static calls = ['getLink']\nconst url = `/payment-links/${id}`",
      },
      { file: TABLE, text: "getLink: { path: '/payment-links/{id}' }" },
    ]
    expect(offences(planted)).toEqual([
      { at: 'src/agent/links.ts:2', what: 'the path in "/payment-links/"' },
      { at: 'src/agent/links.ts:3', what: 'the path in "/payment-links?page=2"' },
      { at: 'src/agent/links.ts:4', what: 'the path in "/_sandbox/webhooks/deliveries/"' },
      { at: 'src/agent/links.ts:5', what: 'the path in "DELETE /subscriptions"' },
      { at: 'src/agent/links.ts:7', what: "the name 'createLink'" },
      { at: 'src/agent/links.ts:8', what: 'the name updateSubscription: as a key' },
      { at: 'src/agent/links.ts:9', what: 'the name .sandboxPay' },
      { at: 'src/sandbox/http/routes.ts:1', what: 'the path in "/_sandbox/clock"' },
      { at: 'src/commands/links/get.ts:2', what: 'the path in "/payment-links/"' },
    ])
  })
})
