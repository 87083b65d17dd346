"""Several instances on one database: the solver's knowledge (winning lines and the
positions along them, positions proven lost), claims on background work, failed
authentications counted together

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 22:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "solver_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("moves", sa.Text(), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_solver_lines")),
    )
    op.create_index(op.f("ix_solver_lines_created_at"), "solver_lines", ["created_at"])
    op.create_table(
        "solver_positions",
        sa.Column("key", sa.LargeBinary(length=16), nullable=False),
        sa.Column("line_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["line_id"],
            ["solver_lines.id"],
            name=op.f("fk_solver_positions_line_id_solver_lines"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_solver_positions")),
    )
    op.create_index(op.f("ix_solver_positions_line_id"), "solver_positions", ["line_id"])
    op.create_index(op.f("ix_solver_positions_created_at"), "solver_positions", ["created_at"])
    op.create_table(
        "work_claims",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=36), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kind", "subject", name=op.f("pk_work_claims")),
    )
    op.create_table(
        "auth_failures",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address", "slot", name=op.f("pk_auth_failures")),
    )


def downgrade() -> None:
    op.drop_table("auth_failures")
    op.drop_table("work_claims")
    op.drop_index(op.f("ix_solver_positions_created_at"), table_name="solver_positions")
    op.drop_index(op.f("ix_solver_positions_line_id"), table_name="solver_positions")
    op.drop_table("solver_positions")
    op.drop_index(op.f("ix_solver_lines_created_at"), table_name="solver_lines")
    op.drop_table("solver_lines")
