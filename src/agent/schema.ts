import type { FieldErrors } from '../errors.js'
import type { Field } from '../shared/fields.js'

/**
 * The JSON Schemas of the tools' arguments, made from the endpoint declarations' fields (the
 * API's names and types), and the check of a call's arguments against them. MCP clients are
 * not bound to send what a schema says: every call is checked here before anything is sent, and
 * what is wrong is said under each argument's name, as a 422 says it.
 */

/** The part of JSON Schema the tools use. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'boolean' | 'integer' | 'array' | 'number'
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean
  items?: JsonSchema
  enum?: readonly string[]
  minItems?: number
  maxItems?: number
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  default?: unknown
}

/** The schema of one declared field. */
export function fieldSchema(field: Field, description?: string): JsonSchema {
  const described = description === undefined ? {} : { description }
  switch (field.type) {
    case 'string[]':
      return { type: 'array', items: { type: 'string' }, ...described }
    case 'object[]':
      return { type: 'array', items: { type: 'object' }, ...described }
    default:
      return { type: field.type, ...described }
  }
}

/** An object of these properties, `required` among them, and no others. */
export const objectSchema = (
  properties: Record<string, JsonSchema>,
  required: string[] = [],
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
})

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
  array: 'a list',
  object: 'an object',
}

/** What is wrong with one value, or undefined. */
function problem(name: string, schema: JsonSchema, value: unknown): string | undefined {
  const type = schema.type
  const fits =
    type === undefined ||
    (type === 'array'
      ? Array.isArray(value)
      : type === 'object'
        ? typeof value === 'object' && value !== null && !Array.isArray(value)
        : type === 'integer'
          ? Number.isInteger(value)
          : typeof value === type)
  if (!fits) return `The ${name} must be ${TYPE_WORDS[type ?? 'object']}.`
  if (typeof value === 'string') {
    if (schema.enum && !schema.enum.includes(value))
      return `The ${name} must be one of: ${schema.enum.join(', ')}.`
    if (schema.minLength !== undefined && value.length < schema.minLength)
      return `The ${name} field is required.`
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      return `The ${name} may not be greater than ${schema.maxLength} characters.`
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      return `The ${name} must be at least ${schema.minimum}.`
    if (schema.maximum !== undefined && value > schema.maximum)
      return `The ${name} may not be greater than ${schema.maximum}.`
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      return `The ${name} must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}.`
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      return `The ${name} may not have more than ${schema.maxItems} items.`
    const items = schema.items
    if (items) {
      for (const item of value) {
        const wrong = problem(`${name} entries`, items, item)
        if (wrong) return wrong
      }
    }
  }
  return undefined
}

/**
 * A call's arguments checked against a tool's schema: every problem at once, under the
 * argument's name (a missing required one, a wrong type, one the tool does not take).
 */
export function checkArguments(schema: JsonSchema, args: unknown): FieldErrors {
  const errors: FieldErrors = {}
  const given =
    typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
  const properties = schema.properties ?? {}
  for (const name of schema.required ?? []) {
    if (given[name] === undefined || given[name] === null) errors[name] = [`The ${name} field is required.`]
  }
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || value === null) continue
    const property = properties[name]
    if (!property) {
      errors[name] = [
        `This tool takes no ${name}: it takes ${Object.keys(properties).join(', ') || 'nothing'}.`,
      ]
      continue
    }
    const wrong = problem(name, property, value)
    if (wrong) errors[name] = [wrong]
  }
  return errors
}
