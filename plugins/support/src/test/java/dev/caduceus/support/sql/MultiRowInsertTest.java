package dev.caduceus.support.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.caduceus.spi.store.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MultiRowInsertTest {
    /** The statements sent, with their arguments. */
    private record Sent(String sql, Object[] args) {}

    private final List<Sent> sent = new ArrayList<>();
    private final Sql sql = new Sql() {
        @Override
        public <T> List<T> query(String statement, RowMapper<T> mapper, Object... args) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> Optional<T> queryOne(String statement, RowMapper<T> mapper, Object... args) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int update(String statement, Object... args) {
            sent.add(new Sent(statement, args));
            return args.length;
        }
    };

    @Test
    void rowsGoInStatementsOfAtMostMaxRowsInOrder() {
        int n = MultiRowInsert.MAX_ROWS * 2 + 3;
        var rows = IntStream.range(0, n).mapToObj(i -> new Object[] {"r", i}).toList();
        MultiRowInsert.insert(sql, "t", "a, b", "ON CONFLICT (a, b) DO NOTHING", rows);
        assertEquals(3, sent.size());
        assertEquals("INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?) ON CONFLICT (a, b) DO NOTHING", sent.get(2).sql());
        assertArrayEquals(new Object[] {"r", n - 3, "r", n - 2, "r", n - 1}, sent.get(2).args());
        assertEquals(MultiRowInsert.MAX_ROWS * 2, sent.get(0).args().length);
        assertEquals(MultiRowInsert.MAX_ROWS, sent.get(1).args()[1], "the second statement starts where the first ended");
    }

    @Test
    void noRowsSendNothingAndARowOfAnotherWidthIsRefused() {
        MultiRowInsert.insert(sql, "t", "a", "", List.of());
        assertEquals(List.of(), sent);
        assertThrows(IllegalArgumentException.class,
                () -> MultiRowInsert.insert(sql, "t", "a, b", "", List.of(new Object[] {1, 2}, new Object[] {3})));
    }

    @Test
    void oneTablesInsertsSendTheSameStatementsAsTheStaticOnesWhateverTheRowCount() {
        var into = MultiRowInsert.into("t", "a, b", "ON CONFLICT (a, b) DO NOTHING");
        for (int n : new int[] {1, 2, 2, 1, 16, 17, MultiRowInsert.MAX_ROWS + 1}) {
            var rows = IntStream.range(0, n).mapToObj(i -> new Object[] {"r", i}).toList();
            into.insert(sql, rows);
            var kept = List.copyOf(sent);
            sent.clear();
            MultiRowInsert.insert(sql, "t", "a, b", "ON CONFLICT (a, b) DO NOTHING", rows);
            assertEquals(sent.size(), kept.size(), n + " rows");
            for (int i = 0; i < kept.size(); i++) {
                assertEquals(sent.get(i).sql(), kept.get(i).sql(), n + " rows");
                assertArrayEquals(sent.get(i).args(), kept.get(i).args(), n + " rows");
            }
            sent.clear();
        }
        into.insert(sql, List.of());
        assertEquals(List.of(), sent);
        assertThrows(IllegalArgumentException.class, () -> into.insert(sql, List.of(new Object[] {1, 2}, new Object[] {3})));
    }
}
