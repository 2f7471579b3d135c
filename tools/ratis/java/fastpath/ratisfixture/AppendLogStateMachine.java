package fastpath.ratisfixture;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The fixture's state machine: an append-only log of bytes.
 *
 * <ul>
 *   <li>A write appends its content (any bytes, possibly none) and answers 16 bytes: the Raft log
 *       index it was applied at, then the byte position where it begins (both uint64 big-endian).
 *   <li>A read-only query with empty content answers 16 bytes: the last applied index, then the
 *       log's total length in bytes.
 *   <li>A query of 16 bytes (position, length; uint64 big-endian) answers those bytes of the log,
 *       clipped to its end (nothing when the position is at or past the end).
 *   <li>Any other query content fails the query: the reply carries a StateMachineException.
 * </ul>
 *
 * <p>The bytes live in a file of the peer's state-machine folder, not in the heap, so that large
 * writes fit small JVMs. There are no snapshots: at every start the file is emptied and Ratis
 * applies the whole Raft log again, which rebuilds the same bytes at the same positions.
 */
public final class AppendLogStateMachine extends BaseStateMachine {
  private static final String DATA_FILE = "append-log.bin";

  private FileChannel data;
  /** Log length in bytes; changes only under this object's lock. */
  private long length;

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
    super.initialize(server, groupId, storage);
    File dir = storage.getStorageDir().getStateMachineDir();
    if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);
    data = FileChannel.open(
        new File(dir, DATA_FILE).toPath(),
        StandardOpenOption.CREATE,
        StandardOpenOption.READ,
        StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING);
    synchronized (this) {
      length = 0;
    }
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    ByteString content = entry.getStateMachineLogEntry().getLogData();
    long position;
    try {
      synchronized (this) {
        position = length;
        long at = position;
        for (ByteBuffer buffer : content.asReadOnlyByteBufferList()) {
          while (buffer.hasRemaining()) at += data.write(buffer, at);
        }
        length = at;
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      }
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return CompletableFuture.completedFuture(Message.valueOf(twoLongs(entry.getIndex(), position)));
  }

  // Ratis's own entries (a new leader's first entry, configuration changes) advance the applied
  // index too; the update takes the same lock so that a status query sees index and length together.
  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    synchronized (this) {
      super.notifyTermIndexUpdated(term, index);
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteString content = request.getContent();
    try {
      if (content.isEmpty()) {
        synchronized (this) {
          return CompletableFuture.completedFuture(
              Message.valueOf(twoLongs(getLastAppliedTermIndex().getIndex(), length)));
        }
      }
      if (content.size() != 16) {
        throw new StateMachineException(
            "a query is empty (status) or 16 bytes (position, length); got " + content.size() + " bytes");
      }
      ByteBuffer in = content.asReadOnlyByteBuffer();
      long position = in.getLong();
      long wanted = in.getLong();
      long end;
      synchronized (this) {
        end = length;
      }
      // uint64 arithmetic: a position at or past the end, or a zero length, reads nothing.
      if (Long.compareUnsigned(position, end) >= 0 || wanted == 0) {
        return CompletableFuture.completedFuture(Message.EMPTY);
      }
      long available = end - position;
      long count = Long.compareUnsigned(wanted, available) < 0 ? wanted : available;
      if (count > Integer.MAX_VALUE - 16) {
        throw new StateMachineException("a read answers at most 2 GiB; asked for " + count + " bytes");
      }
      ByteBuffer out = ByteBuffer.allocate((int) count);
      long at = position;
      while (out.hasRemaining()) {
        int n = data.read(out, at);
        if (n < 0) throw new IOException("the log file ended at " + at + " before " + end);
        at += n;
      }
      out.flip();
      return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(out)));
    } catch (StateMachineException e) {
      return CompletableFuture.failedFuture(e);
    } catch (IOException | RuntimeException e) {
      // Ratis answers the client with a StateMachineException only for that class; anything
      // else would fail the call's stream instead.
      return CompletableFuture.failedFuture(new StateMachineException(Json.describe(e)));
    }
  }

  @Override
  public void close() throws IOException {
    super.close();
    if (data != null) data.close();
  }

  private static ByteString twoLongs(long first, long second) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(first).putLong(second).flip();
    return ByteString.copyFrom(b);
  }
}
