import { plain, type Rec } from '../values.js'

/** One client-side list filter: a flag's value compared with a field of each record. */
interface Filter {
  field: string
  /** The flag's value; undefined when the flag was not given. */
  value: string | boolean | undefined
  /** Text compared exactly rather than ignoring case. */
  exact?: boolean
}

/** A record matches when every filter that was given matches its field. */
export function matchesAll(filters: Filter[]): (record: Rec) => boolean {
  const given = filters.filter((filter) => filter.value !== undefined)
  return (record) =>
    given.every(({ field, value, exact }) => {
      const actual = record[field]
      if (typeof value === 'boolean') return actual === value
      if (exact) return actual === value
      return plain(actual).toLowerCase() === String(value).toLowerCase()
    })
}
