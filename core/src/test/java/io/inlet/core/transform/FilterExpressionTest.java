package io.inlet.core.transform;

import io.inlet.core.InletValidationException;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.TestRows;
import io.inlet.core.transform.internal.FilterExpression;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDateTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FilterExpressionTest {

    private static Boolean eval(String condition, Object... values) {
        return FilterExpression.parse(condition)
                .bind(ShopTables.ORDERS)
                .test(TestRows.row(ShopTables.ORDERS, RowKind.INSERT, values));
    }

    private static final Object[] SHIPPED = {
        7L, "anna", new BigDecimal("10.50"), "shipped", LocalDateTime.parse("2024-03-01T10:00:00")
    };
    private static final Object[] NO_STATUS = {
        8L, "bob", new BigDecimal("0.00"), null, LocalDateTime.parse("2023-12-31T23:59:59.999")
    };

    @Test
    void comparesEveryKindOfColumnWithItsLiteral() {
        assertThat(eval("status = 'shipped'", SHIPPED)).isTrue();
        assertThat(eval("status <> 'shipped'", SHIPPED)).isFalse();
        assertThat(eval("amount > 10", SHIPPED)).isTrue();
        assertThat(eval("amount >= 10.50 AND amount <= 10.5", SHIPPED)).isTrue();
        assertThat(eval("id != 7", SHIPPED)).isFalse();
        assertThat(eval("id < 7.5", SHIPPED)).isTrue();
        assertThat(eval("created >= '2024-01-01 00:00:00'", SHIPPED)).isTrue();
        assertThat(eval("created >= '2024-01-01T00:00:00'", NO_STATUS)).isFalse();
        assertThat(eval("customer LIKE 'an%'", SHIPPED)).isTrue();
        assertThat(eval("customer NOT LIKE '_nna'", SHIPPED)).isFalse();
        assertThat(eval("status IN ('new', 'shipped')", SHIPPED)).isTrue();
        assertThat(eval("status NOT IN ('new', 'shipped')", SHIPPED)).isFalse();
        assertThat(eval("`status` = 'it''s'", SHIPPED)).isFalse();
    }

    @Test
    void followsSqlThreeValuedLogicForNulls() {
        assertThat(eval("status = 'shipped'", NO_STATUS)).isNull();
        assertThat(eval("status <> 'shipped'", NO_STATUS)).isNull();
        assertThat(eval("NOT status = 'shipped'", NO_STATUS)).isNull();
        assertThat(eval("status = 'x' OR id = 8", NO_STATUS)).isTrue();
        assertThat(eval("status = 'x' AND id = 9", NO_STATUS)).isFalse();
        assertThat(eval("status IS NULL", NO_STATUS)).isTrue();
        assertThat(eval("status IS NOT NULL", NO_STATUS)).isFalse();
    }

    @Test
    void honoursPrecedenceAndParentheses() {
        assertThat(eval("id = 1 OR id = 7 AND status = 'new'", SHIPPED)).isFalse();
        assertThat(eval("(id = 1 OR id = 7) AND status = 'shipped'", SHIPPED)).isTrue();
        assertThat(eval("not (id = 7)", SHIPPED)).isFalse();
    }

    @Test
    void reportsSyntaxErrorsWithThePosition() {
        assertThatThrownBy(() -> FilterExpression.parse("status = "))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("expected a literal")
                .hasMessageContaining("position 10");
        assertThatThrownBy(() -> FilterExpression.parse("status == 'x'"))
                .hasMessageContaining("expected a literal")
                .hasMessageContaining("'= 'x''");
        assertThatThrownBy(() -> FilterExpression.parse("status = 'x' amount > 1"))
                .hasMessageContaining("expected AND, OR or the end");
        assertThatThrownBy(() -> FilterExpression.parse("status = NULL"))
                .hasMessageContaining("write 'column IS NULL'");
        assertThatThrownBy(() -> FilterExpression.parse("status = 'open")).hasMessageContaining("closing quote");
    }

    @Test
    void reportsColumnsThatDoNotExistOrCannotTakeTheLiteral() {
        assertThatThrownBy(() -> FilterExpression.parse("price > 1").bind(ShopTables.ORDERS))
                .hasMessageContaining("the column 'price' does not exist in table shop.orders")
                .hasMessageContaining("columns: id, customer, amount, status, created");
        assertThatThrownBy(() -> FilterExpression.parse("amount > 'lots'").bind(ShopTables.ORDERS))
                .hasMessageContaining("compare shop.orders.amount (DECIMAL(10, 2)) with a number");
        assertThatThrownBy(() -> FilterExpression.parse("status > 3").bind(ShopTables.ORDERS))
                .hasMessageContaining("with a quoted literal");
        assertThatThrownBy(() -> FilterExpression.parse("created > 'yesterday'").bind(ShopTables.ORDERS))
                .hasMessageContaining("does not fit shop.orders.created");
        assertThatThrownBy(() -> FilterExpression.parse("amount LIKE '1%'").bind(ShopTables.ORDERS))
                .hasMessageContaining("LIKE needs a string column");
    }
}
