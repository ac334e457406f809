package io.ringflow.state.codec;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CodecBufferTest
{
    private static final byte SENTINEL = (byte)0xA5;

    @Test
    void everyWidthIsWrittenAndReadLittleEndian()
    {
        final byte[] array = new byte[32];
        final CodecBuffer buffer = CodecBuffer.wrap(array);
        buffer.putLong(0, 0x0102030405060708L);
        buffer.putInt(8, 0x0A0B0C0D);
        buffer.putShort(12, (short)0x1112);
        buffer.putChar(14, '\u20ac');
        buffer.putDouble(16, 1.0);
        buffer.putFloat(24, 1.0f);
        buffer.putByte(28, (byte)-2);

        assertThat(Arrays.copyOfRange(array, 0, 29)).containsExactly(
            8, 7, 6, 5, 4, 3, 2, 1, 0x0D, 0x0C, 0x0B, 0x0A, 0x12, 0x11, 0xac, 0x20,
            0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0x80, 0x3f, 0xfe);
        assertThat(buffer.getLong(0)).isEqualTo(0x0102030405060708L);
        assertThat(buffer.getInt(8)).isEqualTo(0x0A0B0C0D);
        assertThat(buffer.getShort(12)).isEqualTo((short)0x1112);
        assertThat(buffer.getChar(14)).isEqualTo('\u20ac');
        assertThat(buffer.getDouble(16)).isEqualTo(1.0);
        assertThat(buffer.getFloat(24)).isEqualTo(1.0f);
        assertThat(buffer.getByte(28)).isEqualTo((byte)-2);
        assertThat(buffer.overflowed()).isFalse();
    }

    @Test
    void aWindowIsIndexedFromItsOwnStartOnHeapAndOffHeap()
    {
        final byte[] array = filled(20);
        final CodecBuffer heap = CodecBuffer.wrap(array, 5, 10);
        heap.putInt(0, 0x04030201);
        assertThat(Arrays.copyOfRange(array, 4, 10)).containsExactly(SENTINEL, 1, 2, 3, 4, SENTINEL);
        assertThat(heap.capacity()).isEqualTo(10);

        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        final CodecBuffer window = CodecBuffer.wrap(direct, 24, 8);
        window.putLong(0, -1L);
        assertThat(direct.getLong(24)).isEqualTo(-1L);
        assertThat(direct.get(23)).isZero();
        assertThat(direct.get(32)).isZero();
        assertThat(window.getLong(0)).isEqualTo(-1L);
    }

    @Test
    void aWriteThatDoesNotFitAFixedWindowIsDroppedWholeAndMarked()
    {
        final byte[] array = filled(12);
        final CodecBuffer window = CodecBuffer.wrap(array, 2, 8);

        window.putInt(6, 7);
        assertThat(window.overflowed()).isTrue();
        window.putLong(1, 7L);
        window.putByte(8, (byte)7);
        window.putBytes(4, new byte[5], 0, 5);
        window.putZeros(0, 9);
        assertThat(array).as("nothing written, in the window or beside it").containsOnly(SENTINEL);

        window.clearOverflow();
        assertThat(window.overflowed()).isFalse();
        window.putLong(0, 0L);
        assertThat(window.overflowed()).isFalse();
        assertThat(array[1]).isEqualTo(SENTINEL);
        assertThat(array[10]).isEqualTo(SENTINEL);
    }

    @Test
    void aNegativeIndexIsAProgrammingErrorNotAnOverflow()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(8);
        assertThatThrownBy(() -> buffer.putInt(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.reserve(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.reserve(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(buffer.overflowed()).isFalse();
    }

    @Test
    void readingPastTheEndThrowsNamingTheIndex()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(8);
        assertThatThrownBy(() -> buffer.getInt(6)).isInstanceOf(IndexOutOfBoundsException.class)
            .hasMessageContaining("index 6");
        assertThatThrownBy(() -> buffer.getByte(8)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> buffer.toByteArray(4, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> CodecBuffer.allocate(4).putBytes(0, buffer, 6, 4))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aGrowableBufferGrowsAndKeepsWhatItHolds()
    {
        final CodecBuffer buffer = CodecBuffer.growable(16);
        buffer.putLong(0, 42L);
        buffer.putLong(1000, 43L);

        assertThat(buffer.overflowed()).isFalse();
        assertThat(buffer.isGrowable()).isTrue();
        assertThat(buffer.capacity()).isGreaterThanOrEqualTo(1008);
        assertThat(buffer.getLong(0)).isEqualTo(42L);
        assertThat(buffer.getLong(1000)).isEqualTo(43L);
        assertThatThrownBy(() -> buffer.rewrap(ByteBuffer.allocate(8), 0, 8))
            .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void reserveSaysWhetherBytesFitWithoutWritingAndGrowsAGrowableBuffer()
    {
        final byte[] array = filled(10);
        final CodecBuffer fixed = CodecBuffer.wrap(array, 0, 8);
        assertThat(fixed.reserve(0, 8)).isTrue();
        assertThat(fixed.reserve(8, 0)).isTrue();
        assertThat(fixed.overflowed()).isFalse();
        assertThat(fixed.reserve(4, 5)).isFalse();
        assertThat(fixed.overflowed()).isTrue();
        fixed.clearOverflow();
        assertThat(fixed.reserve(0, Integer.MAX_VALUE + 1L)).isFalse();
        assertThat(fixed.overflowed()).isTrue();
        assertThat(array).containsOnly(SENTINEL);

        final CodecBuffer growable = CodecBuffer.growable(16);
        growable.putInt(0, 9);
        assertThat(growable.reserve(4, 100)).isTrue();
        assertThat(growable.capacity()).isGreaterThanOrEqualTo(104);
        assertThat(growable.getInt(0)).isEqualTo(9);
        assertThat(growable.reserve(0, Integer.MAX_VALUE + 1L)).isFalse();
        assertThat(growable.overflowed()).as("not even a growable buffer holds more than 2 GiB").isTrue();
    }

    @Test
    void rewrapMovesAFixedWindowAndClearsTheMark()
    {
        final ByteBuffer slots = ByteBuffer.allocateDirect(32);
        final CodecBuffer slot = CodecBuffer.wrap(slots, 0, 16);
        slot.putLong(12, 1L);
        assertThat(slot.overflowed()).isTrue();

        slot.rewrap(slots, 16, 16);
        assertThat(slot.overflowed()).isFalse();
        slot.putLong(0, 5L);
        assertThat(slots.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(16)).isEqualTo(5L);
        assertThat(slots.getLong(0)).isZero();
    }

    @Test
    void bytesAreCopiedComparedAndStreamedBetweenHeapAndDirectBuffers() throws IOException
    {
        final CodecBuffer heap = CodecBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6});
        final CodecBuffer direct = CodecBuffer.wrap(ByteBuffer.allocateDirect(16), 4, 8);
        direct.putBytes(2, heap, 1, 4);

        assertThat(direct.toByteArray(2, 4)).containsExactly(2, 3, 4, 5);
        assertThat(direct.equalBytes(2, 4, heap, 1)).isTrue();
        assertThat(direct.equalBytes(2, 4, heap, 0)).isFalse();

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        direct.writeTo(2, 4, out);
        heap.writeTo(0, 2, out);
        assertThat(out.toByteArray()).containsExactly(2, 3, 4, 5, 1, 2);

        direct.putZeros(2, 2);
        final byte[] copy = new byte[3];
        direct.getBytes(2, copy, 0, 3);
        assertThat(copy).containsExactly(0, 0, 4);
    }

    private static byte[] filled(final int length)
    {
        final byte[] array = new byte[length];
        Arrays.fill(array, SENTINEL);
        return array;
    }
}
