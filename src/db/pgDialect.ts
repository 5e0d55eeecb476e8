import { type BinaryOperationNode, OperatorNode, PostgresDialect, PostgresQueryCompiler, PrimitiveValueListNode, type QueryCompiler } from "kysely";

/**
 * Kysely's PostgreSQL dialect, with a list of values compared as one array parameter:
 * `x in ($1, $2, …, $n)` is sent as `x = any($1)` and `x not in (…)` as `x <> all($1)`, which
 * mean the same (NULLs included). The statement's text then no longer depends on the list's
 * length, so it can be prepared once (db/pgPreparedStatements.ts), and a long list is one
 * parameter to bind instead of hundreds to parse. Lists of expressions or tuples are left as they are.
 */
export class ParleyPostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new ArrayListQueryCompiler();
  }
}

class ArrayListQueryCompiler extends PostgresQueryCompiler {
  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    const { operator, rightOperand } = node;
    if (OperatorNode.is(operator) && (operator.operator === "in" || operator.operator === "not in") && PrimitiveValueListNode.is(rightOperand)) {
      this.visitNode(node.leftOperand);
      this.append(operator.operator === "in" ? " = any(" : " <> all(");
      this.appendValue([...rightOperand.values]);
      this.append(")");
      return;
    }
    super.visitBinaryOperation(node);
  }
}
