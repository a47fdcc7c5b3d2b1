/** Types of the `s-expression` npm package (it ships none). */
declare module 's-expression' {
  /** A parsed node: an atom (quoted strings come back as `String` objects) or a list. */
  // eslint-disable-next-line @typescript-eslint/no-wrapper-object-types -- the parser really returns String objects
  export type SExpr = string | String | SExpr[];
  /** Parses one S-expression; a syntax error is returned (not thrown) as an `Error`. */
  export default function parse(text: string): SExpr | Error;
}
