/**
 * How far a watch's changes have been handled, for its checkpoint. Resource versions are opaque,
 * so order is the stream's own: every change and bookmark leaves a mark in arrival order, and the
 * checkpoint is the resourceVersion of the last mark of the longest handled prefix. A watcher that
 * dies resumes before anything it had not finished; a change handled twice costs a pass, a change
 * skipped would cost an attachment.
 */

/** One change (done once its pass finished, or at once when it asks for none) or bookmark (done at once). */
export interface Mark {
  resourceVersion: string;
  done: boolean;
}

/** Marks are dropped from the front once handled; the array is compacted past this many. */
const COMPACT_AFTER = 1024;

export class HandledPrefix {
  private marks: Mark[] = [];
  private head = 0;

  add(resourceVersion: string, done: boolean): Mark {
    const mark = { resourceVersion, done };
    this.marks.push(mark);
    return mark;
  }

  /** The resourceVersion every change up to which is handled, if that moved since the last call. */
  advance(): string | undefined {
    let through: string | undefined;
    while (this.head < this.marks.length && this.marks[this.head]?.done === true) {
      through = this.marks[this.head]?.resourceVersion;
      this.head += 1;
    }
    if (this.head > COMPACT_AFTER) {
      this.marks = this.marks.slice(this.head);
      this.head = 0;
    }
    return through;
  }

  /** Marks not yet handled (or behind one that is not). */
  pending(): number {
    return this.marks.length - this.head;
  }
}
