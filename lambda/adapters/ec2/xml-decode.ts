/**
 * Decodes an EC2 Query response body straight into the SDK's output shape, keeping only the elements
 * a shape names: a SAX pass (saxes, a conforming XML parser, so entities, CDATA and well-formedness
 * are its) instead of the SDK's whole-document parse and schema walk, which were most of a sync
 * pass's CPU (issue 30). Unknown elements, at any depth, are skipped with everything inside them, so
 * a field EC2 adds later (or a nested `item` of one) never lands in an object. Namespace prefixes
 * are dropped: EC2 answers in its default namespace, and a name is matched by its local part.
 */
import { SaxesParser } from 'saxes';

/** A text element: `read` turns its text into the SDK's value (string, boolean, number, Date). */
export interface LeafShape {
  kind: 'leaf';
  key: string;
  read: (text: string) => unknown;
}

/** A nested element decoded into an object under `key`. */
export interface StructShape {
  kind: 'struct';
  key: string;
  fields: Fields;
}

/** EC2's list: `<name><item>…</item>…</name>`, decoded into an array under `key` (empty when the element is). */
export interface ListShape {
  kind: 'list';
  key: string;
  item: Fields;
}

export type FieldShape = LeafShape | StructShape | ListShape;
/** Element local name → what it becomes. A Map, so no element name can reach an object's prototype. */
export type Fields = ReadonlyMap<string, FieldShape>;

/** A whole response: its root element's name and the fields under it. */
export interface ResponseShape {
  root: string;
  fields: Fields;
}

export class Ec2DecodeError extends Error {
  override readonly name = 'Ec2DecodeError';
}

export const text = (key: string): LeafShape => ({ kind: 'leaf', key, read: (value) => value });
export const flag = (key: string): LeafShape => ({ kind: 'leaf', key, read: (value) => value.trim() === 'true' });
export const integer = (key: string): LeafShape => ({ kind: 'leaf', key, read: (value) => Number(value) });
export const time = (key: string): LeafShape => ({ kind: 'leaf', key, read: timestamp });
export const struct = (key: string, fields: Fields): StructShape => ({ kind: 'struct', key, fields });
export const list = (key: string, item: Fields): ListShape => ({ kind: 'list', key, item });
export const fields = (...shapes: [string, FieldShape][]): Fields => new Map(shapes);

function timestamp(value: string): Date {
  const date = new Date(value.trim());
  if (Number.isNaN(date.getTime())) throw new Ec2DecodeError(`EC2 response: not a timestamp: ${JSON.stringify(value)}`);
  return date;
}

type Frame =
  | { kind: 'object'; key: string | undefined; fields: Fields; value: Record<string, unknown> }
  | { kind: 'list'; key: string; item: Fields; value: unknown[] }
  | { kind: 'leaf'; shape: LeafShape; text: string }
  | { kind: 'skip' };

const SKIP: Frame = { kind: 'skip' };

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** The frame an element opens under `parent`: what its shape says, or a skip. */
function childFrame(parent: Frame, name: string): Frame {
  if (parent.kind === 'list') return name === 'item' ? { kind: 'object', key: undefined, fields: parent.item, value: {} } : SKIP;
  if (parent.kind !== 'object') return SKIP;
  const shape = parent.fields.get(name);
  if (shape === undefined) return SKIP;
  if (shape.kind === 'leaf') return { kind: 'leaf', shape, text: '' };
  if (shape.kind === 'struct') return { kind: 'object', key: shape.key, fields: shape.fields, value: {} };
  return { kind: 'list', key: shape.key, item: shape.item, value: [] };
}

/** Puts a closed element's value where its parent keeps it. */
function store(parent: Frame | undefined, frame: Frame): void {
  if (parent === undefined || frame.kind === 'skip') return;
  if (parent.kind === 'list') {
    if (frame.kind === 'object') parent.value.push(frame.value);
    return;
  }
  if (parent.kind !== 'object') return;
  if (frame.kind === 'leaf') parent.value[frame.shape.key] = frame.shape.read(frame.text);
  else if (frame.key !== undefined) parent.value[frame.key] = frame.value;
}

/** A streaming decoder: `write` chunks of the body as they arrive, then `end` for the output. */
export class ResponseDecoder {
  private readonly parser = new SaxesParser({ position: false });
  private readonly stack: Frame[] = [];
  private output: Record<string, unknown> | undefined;

  constructor(private readonly shape: ResponseShape) {
    this.parser.on('opentag', (tag) => this.open(localName(tag.name)));
    this.parser.on('closetag', () => this.close());
    this.parser.on('text', (value) => this.text(value));
    this.parser.on('cdata', (value) => this.text(value));
  }

  write(chunk: string): void {
    this.parse(() => this.parser.write(chunk));
  }

  end(): Record<string, unknown> {
    this.parse(() => this.parser.close());
    if (this.output === undefined) throw new Ec2DecodeError(`EC2 response: no ${this.shape.root} element`);
    return this.output;
  }

  private parse(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof Ec2DecodeError) throw error;
      throw new Ec2DecodeError(`EC2 response: not well-formed XML (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private open(name: string): void {
    const parent = this.stack.at(-1);
    if (parent !== undefined) {
      this.stack.push(childFrame(parent, name));
      return;
    }
    if (name !== this.shape.root) throw new Ec2DecodeError(`EC2 response: expected ${this.shape.root}, got ${name}`);
    this.stack.push({ kind: 'object', key: undefined, fields: this.shape.fields, value: {} });
  }

  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (this.stack.length === 0 && frame.kind === 'object') this.output = frame.value;
    else store(this.stack.at(-1), frame);
  }

  private text(value: string): void {
    const top = this.stack.at(-1);
    if (top?.kind === 'leaf') top.text += value;
  }
}
