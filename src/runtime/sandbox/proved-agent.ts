import http from 'node:http'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import { UNPROVEN_CONNECTION } from '../../api/failures.js'
import { loadProofCheck } from '../../sandbox/index.js'

/**
 * Connections to the user's own sandbox, each proved before anything goes on it. A command that
 * runs for a while (`links wait`, a bulk run) opens new connections as it goes; the sandbox may
 * stop meanwhile and another program take its port. So the proof that the sandbox is the user's
 * (src/sandbox/http/proof.ts: an answer to a challenge, bound to the address and port the
 * connection reached) is asked again on every new connection, on that connection itself, before
 * the request with the key is written to it. A connection that cannot prove it is closed and its
 * request fails with UNPROVEN_CONNECTION (nothing of it was sent); a connection that proved it is kept
 * alive and used again as usual.
 */

/** The longest the proof may take on a new connection; the request's own deadline may be shorter. */
const PROOF_TIMEOUT_MS = 5000
/** The health answer is a few dozen bytes; anything past this is not a sandbox's. */
const MAX_ANSWER_BYTES = 4096

type ProofCheck = Awaited<ReturnType<typeof loadProofCheck>>

class ProvedAgent extends http.Agent {
  constructor(
    private readonly host: string,
    private readonly check: ProofCheck,
    private readonly secret: Buffer,
  ) {
    super({ keepAlive: true })
  }

  // Node's Agent takes a connection handed to this callback later (its createSocket's `oncreate`).
  createConnection(
    options: net.NetConnectOpts,
    callback: (error: Error | null, socket?: Duplex) => void,
  ): Duplex | undefined {
    const socket = net.createConnection(options)
    const failed = (error: Error) => callback(error)
    socket.once('error', failed)
    socket.once('connect', () => {
      this.prove(socket).then(
        () => {
          socket.off('error', failed)
          callback(null, socket)
        },
        (error: Error) => {
          socket.destroy()
          callback(error)
        },
      )
    })
    return undefined
  }

  /** Asks the health route for a proof on `socket` and checks it; rejects with UNPROVEN_CONNECTION when it does not hold. */
  private async prove(socket: net.Socket): Promise<void> {
    const challenge = this.check.newChallenge()
    socket.write(
      `GET /_sandbox/health?challenge=${challenge} HTTP/1.1\r\nHost: ${this.host}\r\n` +
        'Accept: application/json\r\nConnection: keep-alive\r\n\r\n',
    )
    const proof = await readHealthAnswer(socket)
    const endpoint = this.check.endpointOf(socket.remoteAddress, socket.remotePort)
    if (proof === undefined || !this.check.isProof(this.secret, challenge, endpoint, proof)) {
      throw Object.assign(new Error(`${endpoint} could not prove it is your sandbox`), {
        code: UNPROVEN_CONNECTION,
      })
    }
  }
}

/**
 * The `proof` of the health answer read from `socket`, exactly that answer and nothing more
 * (a 200 from a pay sandbox, its length given, the connection kept alive); undefined for anything
 * else. The socket is left as it was found, paused, for the request that follows.
 */
function readHealthAnswer(socket: net.Socket): Promise<unknown> {
  return new Promise((resolve) => {
    let read = Buffer.alloc(0)
    const done = (proof: unknown) => {
      clearTimeout(timer)
      socket.off('readable', onReadable)
      socket.off('end', onEnd)
      socket.off('close', onEnd)
      resolve(proof)
    }
    const onEnd = () => done(undefined)
    const onReadable = () => {
      for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
        read = Buffer.concat([read, chunk as Buffer])
        if (read.length > MAX_ANSWER_BYTES) return done(undefined)
      }
      const answer = parseAnswer(read)
      if (answer !== 'more') done(answer)
    }
    const timer = setTimeout(onEnd, PROOF_TIMEOUT_MS)
    socket.on('readable', onReadable)
    socket.once('end', onEnd)
    socket.once('close', onEnd)
  })
}

/** The proof in a whole health answer; 'more' while it is not whole yet; undefined when it is no sandbox's. */
function parseAnswer(bytes: Buffer): unknown {
  const end = bytes.indexOf('\r\n\r\n')
  if (end === -1) return 'more'
  const [status, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers = new Map(
    lines.map((line) => {
      const [name, ...value] = line.toLowerCase().split(':')
      return [name.trim(), value.join(':').trim()]
    }),
  )
  const length = Number(headers.get('content-length'))
  if (
    !/^HTTP\/1\.1 200 /.test(status) ||
    headers.get('x-pay-sandbox') !== '1' ||
    headers.get('connection') === 'close' ||
    headers.has('transfer-encoding') ||
    !Number.isInteger(length)
  )
    return undefined
  const body = bytes.subarray(end + 4)
  if (body.length < length) return 'more'
  // Anything after the answer would be read as the answer to the request that follows.
  if (body.length > length) return undefined
  try {
    return (JSON.parse(body.toString('utf8')) as { proof?: unknown }).proof
  } catch {
    return undefined
  }
}

/**
 * An agent for requests to the user's sandbox at `baseUrl` (a plain http one) whose store is in
 * `dir`: each new connection proves it reaches that sandbox before a request goes on it.
 * Undefined when pay holds no secret of `dir` to check a proof with (then nothing proved it at all).
 */
export async function provedAgent(baseUrl: string, dir: string): Promise<http.Agent | undefined> {
  const url = new URL(baseUrl)
  if (url.protocol !== 'http:') return undefined
  const check = await loadProofCheck()
  const secret = check.clientSecret(dir)
  return secret === undefined ? undefined : new ProvedAgent(url.host, check, secret)
}
