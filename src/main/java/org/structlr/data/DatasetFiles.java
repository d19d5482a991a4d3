package org.structlr.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The example files of a data set folder, listed but not read: each split's {@code .npz} files
 * sorted by file name, as {@link ExampleIO#readDataset} reads them (train/ and test/ required and
 * not empty, val/ when it exists). Listing is separate from reading so that a driver can list a
 * data set on any file system ({@link Folders}) and leave the reading to the machines that train on
 * it; the checks and their messages are the same wherever the folder is.
 *
 * @param root  the folder, as given (a path or a URI)
 * @param train the training files, as locations ({@code root/train/NAME.npz})
 */
public record DatasetFiles(String root, List<String> train, List<String> test, List<String> val) {

    /** A file system's folders, by location (a local path or a URI). */
    public interface Folders {
        boolean isFolder(String location) throws IOException;

        /** The regular files directly in {@code folder}, as locations, in any order. */
        List<String> files(String folder) throws IOException;
    }

    /** The local file system. */
    public static final Folders LOCAL = new Folders() {
        @Override
        public boolean isFolder(String location) {
            return Files.isDirectory(Path.of(location));
        }

        @Override
        public List<String> files(String folder) throws IOException {
            try (Stream<Path> s = Files.list(Path.of(folder))) {
                return s.filter(Files::isRegularFile).map(Path::toString).toList();
            }
        }
    };

    /**
     * Lists the data set folder {@code root}.
     *
     * @throws BadInputException naming the folder and the problem (missing, empty, unlistable)
     */
    public static DatasetFiles list(String root, Folders fs) {
        if (!isFolder(fs, root)) throw new BadInputException(root + ": missing folder: no such data set folder");
        return new DatasetFiles(root, split(fs, child(root, "train"), true), split(fs, child(root, "test"), true),
                split(fs, child(root, "val"), false));
    }

    private static List<String> split(Folders fs, String dir, boolean required) {
        if (!isFolder(fs, dir)) {
            if (!required) return List.of();
            throw new BadInputException(dir + ": missing folder: a data set needs train/ and test/ folders of .npz files");
        }
        List<String> files;
        try {
            files = new ArrayList<>(fs.files(dir).stream().filter(f -> fileName(f).endsWith(".npz")).toList());
        } catch (IOException ex) {
            throw new BadInputException(dir + ": cannot list folder: " + ex);
        }
        files.sort((x, y) -> fileName(x).compareTo(fileName(y)));
        if (files.isEmpty()) throw new BadInputException(dir + ": empty folder: no .npz files");
        return List.copyOf(files);
    }

    private static boolean isFolder(Folders fs, String location) {
        try {
            return fs.isFolder(location);
        } catch (IOException ex) {
            throw new BadInputException(location + ": cannot read: " + ex.getMessage());
        }
    }

    /** {@code folder/name} (a path or a URI). */
    public static String child(String folder, String name) {
        if (folder.isEmpty()) return name;
        return folder.endsWith("/") ? folder + name : folder + "/" + name;
    }

    /** The last part of a location. */
    public static String fileName(String location) {
        String s = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        return s.substring(s.lastIndexOf('/') + 1);
    }

    /** Every file, train then test then val (the order of {@link Dataset#all()}). */
    public List<String> all() {
        List<String> out = new ArrayList<>(train);
        out.addAll(test);
        out.addAll(val);
        return out;
    }
}
